// The load generator of bench/webhook/run.ts (Go standard library only, so it builds in seconds): sends one
// request body at a fixed rate, open loop, for a given time, and prints the latency percentiles as JSON.
// Latency runs from each request's scheduled send time, so a server (or client) that falls behind shows
// the queueing it causes instead of hiding it.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"
)

type result struct {
	Sent     int            `json:"sent"`
	OK       int            `json:"ok"`
	Failed   int            `json:"failed"`
	Statuses map[string]int `json:"statuses"`
	Samples  []string       `json:"failure_samples,omitempty"`
	P50      float64        `json:"p50_ms"`
	P90      float64        `json:"p90_ms"`
	P99      float64        `json:"p99_ms"`
	Max      float64        `json:"max_ms"`
}

func main() {
	url := flag.String("url", "", "where to POST")
	caFile := flag.String("ca", "", "PEM CA bundle the server's certificate chains to")
	certFile := flag.String("cert", "", "client certificate (PEM), optional")
	keyFile := flag.String("key", "", "client key (PEM), optional")
	bodyFile := flag.String("body", "", "request body file")
	rate := flag.Float64("rate", 100, "requests per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	expect := flag.Int("expect", 200, "the status code of a successful request")
	flag.Parse()

	body, err := os.ReadFile(*bodyFile)
	check(err)
	pem, err := os.ReadFile(*caFile)
	check(err)
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		check(fmt.Errorf("no certificate in %s", *caFile))
	}
	config := &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}}
	if *certFile != "" {
		pair, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		check(err)
		config.Certificates = []tls.Certificate{pair}
	}
	transport := &http.Transport{
		TLSClientConfig:     config,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     90 * time.Second,
		// HTTP/1.1 only: what kube-apiserver speaks to both servers in the bench.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	var mu sync.Mutex
	var wg sync.WaitGroup
	out := result{Statuses: map[string]int{}}
	latencies := []float64{}
	interval := time.Duration(float64(time.Second) / *rate)
	start := time.Now()
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if at.Sub(start) >= *duration {
			break
		}
		time.Sleep(time.Until(at))
		wg.Add(1)
		go func(at time.Time) {
			defer wg.Done()
			req, _ := http.NewRequest("POST", *url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			resp, err := client.Do(req)
			status := "error"
			detail := ""
			if err == nil {
				text, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				status = fmt.Sprint(resp.StatusCode)
				detail = string(text)
			} else {
				detail = err.Error()
			}
			ms := float64(time.Since(at).Microseconds()) / 1000
			mu.Lock()
			defer mu.Unlock()
			out.Sent++
			out.Statuses[status]++
			if err == nil && resp.StatusCode == *expect {
				out.OK++
				latencies = append(latencies, ms)
			} else {
				out.Failed++
				// A few, to say why: the first three, each cut to 300 bytes.
				if len(out.Samples) < 3 {
					if len(detail) > 300 {
						detail = detail[:300]
					}
					out.Samples = append(out.Samples, status+": "+detail)
				}
			}
		}(at)
	}
	wg.Wait()
	sort.Float64s(latencies)
	pick := func(q float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(q*float64(len(latencies)-1)+0.5)]
	}
	out.P50, out.P90, out.P99 = pick(0.5), pick(0.9), pick(0.99)
	if len(latencies) > 0 {
		out.Max = latencies[len(latencies)-1]
	}
	check(json.NewEncoder(os.Stdout).Encode(out))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
}
