// Command metrics-check reads a Prometheus text exposition on stdin and reports what is wrong with
// it, for the tests that check kubeloop's /metrics output. It parses with the text parser Prometheus
// itself uses for scrapes (legacy metric names, as every Prometheus version accepts them), refuses a
// series that appears twice, and runs client_golang's promlint rules (counter suffixes, units, HELP
// text, histogram shape).
//
// Exit status: 0 valid and lint-clean; 1 the input does not parse (or repeats a series); 3 lint
// problems, one per line on stdout as "<metric>: <problem>".
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}

func run(in io.Reader, out, errOut io.Writer) int {
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(errOut, "metrics-check: cannot read standard input: %v\n", err)
		return 1
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintf(errOut, "metrics-check: %v\n", err)
		return 1
	}
	if dup := firstDuplicate(families); dup != "" {
		fmt.Fprintf(errOut, "metrics-check: series %s appears more than once\n", dup)
		return 1
	}
	list := make([]*dto.MetricFamily, 0, len(families))
	for _, mf := range families {
		list = append(list, mf)
	}
	problems, err := promlint.NewWithMetricFamilies(list).Lint()
	if err != nil {
		fmt.Fprintf(errOut, "metrics-check: %v\n", err)
		return 1
	}
	for _, p := range problems {
		fmt.Fprintf(out, "%s: %s\n", p.Metric, p.Text)
	}
	if len(problems) > 0 {
		return 3
	}
	return 0
}

// firstDuplicate names the first series (metric name plus label set) found twice, or returns "".
// The text parser keeps duplicates, and a registry bug that writes one series twice makes the
// scraping Prometheus drop the whole scrape.
func firstDuplicate(families map[string]*dto.MetricFamily) string {
	names := make([]string, 0, len(families))
	for name := range families {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		seen := map[string]bool{}
		for _, m := range families[name].GetMetric() {
			id := seriesID(name, m.GetLabel())
			if seen[id] {
				return id
			}
			seen[id] = true
		}
	}
	return ""
}

func seriesID(name string, labels []*dto.LabelPair) string {
	parts := make([]string, 0, len(labels))
	for _, l := range labels {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}
