// otelcol: a real OpenTelemetry Collector for the tracing tests, built from the Collector's Go modules the
// way tests/testenv/build.sh builds the control plane (build.sh beside this file does, cached by hash). It
// is the Collector's own service (otelcol) with one receiver, the OTLP receiver as the Collector ships it
// (HTTP and gRPC; Deno exports OTLP over HTTP), and one exporter of ours, "jsonl", which appends each batch
// of spans, log records or metrics it is given to a file as one line of OTLP JSON (the Collector's own
// marshalers; a line's top-level key, resourceSpans, resourceLogs or resourceMetrics, says which), for the
// tests to read. A config for it:
//
//	receivers:
//	  otlp: {protocols: {http: {endpoint: 127.0.0.1:4318}}}
//	exporters:
//	  jsonl: {path: /tmp/spans.jsonl}
//	service:
//	  telemetry: {metrics: {level: none}, logs: {level: warn}}
//	  pipelines:
//	    traces: {receivers: [otlp], exporters: [jsonl]}
//	    logs: {receivers: [otlp], exporters: [jsonl]}
//
// Run: otelcol --config=/path/to/config.yaml
package main

import (
	"context"
	"errors"
	"log"
	"os"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// jsonlConfig is the exporter's configuration: the file to append to.
type jsonlConfig struct {
	Path string `mapstructure:"path"`
}

// jsonlExporter writes whole lines under a lock, so a reader never sees half a batch.
type jsonlExporter struct {
	path string
	mu   sync.Mutex
	file *os.File
}

// Start and Shutdown run once per pipeline that uses the exporter; the file is opened once.
func (e *jsonlExporter) Start(context.Context, component.Host) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.file != nil {
		return nil
	}
	f, err := os.OpenFile(e.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	e.file = f
	return err
}

func (e *jsonlExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.file == nil {
		return nil
	}
	err := e.file.Close()
	e.file = nil
	return err
}

func (e *jsonlExporter) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

func (e *jsonlExporter) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	return e.write(line, err)
}

func (e *jsonlExporter) ConsumeLogs(_ context.Context, ld plog.Logs) error {
	line, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	return e.write(line, err)
}

func (e *jsonlExporter) ConsumeMetrics(_ context.Context, md pmetric.Metrics) error {
	line, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	return e.write(line, err)
}

func (e *jsonlExporter) write(line []byte, err error) error {
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.file == nil {
		return errors.New("jsonl exporter: not started")
	}
	_, err = e.file.Write(append(line, '\n'))
	return err
}

// The exporters of one config share one file (and its lock): a pipeline per signal each asks the factory.
var (
	exportersMu sync.Mutex
	exporters   = map[string]*jsonlExporter{}
)

func exporterFor(cfg component.Config) (*jsonlExporter, error) {
	c := cfg.(*jsonlConfig)
	if c.Path == "" {
		return nil, errors.New("jsonl exporter: path is required")
	}
	exportersMu.Lock()
	defer exportersMu.Unlock()
	if e, ok := exporters[c.Path]; ok {
		return e, nil
	}
	e := &jsonlExporter{path: c.Path}
	exporters[c.Path] = e
	return e, nil
}

func jsonlFactory() exporter.Factory {
	return exporter.NewFactory(
		component.MustNewType("jsonl"),
		func() component.Config { return &jsonlConfig{} },
		exporter.WithTraces(func(_ context.Context, _ exporter.Settings, cfg component.Config) (exporter.Traces, error) {
			return exporterFor(cfg)
		}, component.StabilityLevelDevelopment),
		exporter.WithLogs(func(_ context.Context, _ exporter.Settings, cfg component.Config) (exporter.Logs, error) {
			return exporterFor(cfg)
		}, component.StabilityLevelDevelopment),
		exporter.WithMetrics(func(_ context.Context, _ exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
			return exporterFor(cfg)
		}, component.StabilityLevelDevelopment),
	)
}

func factories() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](jsonlFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{
		Receivers: receivers,
		Exporters: exporters,
		Telemetry: otelconftelemetry.NewFactory(),
	}, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol", Description: "kubeloop's test collector", Version: "test"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
				DefaultScheme:     "file",
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}
