// Command http_oracle answers, for the HTTP/1.1 differential test, what Go's net/http client makes of
// a response: it reads one JSON request per line on stdin, {"id":1,"method":"GET","url":"http://..."},
// sends it with a net/http Transport (no keep-alive, no proxy, transparent gzip as by default), reads
// the whole body, and writes one JSON line per request on stdout, in completion order:
// {"id":1,"ok":true,"status":200,"body":"<base64>"} or {"id":1,"ok":false,"error":"..."}.
// Requests run concurrently (-workers); stdin's end stops it once all answers are written.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

type query struct {
	ID     int    `json:"id"`
	Method string `json:"method"`
	URL    string `json:"url"`
}

type verdict struct {
	ID     int    `json:"id"`
	OK     bool   `json:"ok"`
	Status int    `json:"status"`
	Body   []byte `json:"body,omitempty"`
	Error  string `json:"error,omitempty"`
}

func main() {
	workers := flag.Int("workers", 8, "requests in flight at once")
	timeout := flag.Duration("timeout", 20*time.Second, "limit for one request, body included")
	flag.Parse()

	transport := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	queries := make(chan query)
	verdicts := make(chan verdict)
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range queries {
				verdicts <- fetch(transport, q, *timeout)
			}
		}()
	}
	go func() {
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 64*1024), 1024*1024)
		for in.Scan() {
			var q query
			if err := json.Unmarshal(in.Bytes(), &q); err != nil {
				os.Stderr.WriteString("http_oracle: bad input line: " + err.Error() + "\n")
				os.Exit(2)
			}
			queries <- q
		}
		close(queries)
		wg.Wait()
		close(verdicts)
	}()
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for v := range verdicts {
		if err := enc.Encode(v); err != nil {
			os.Exit(3)
		}
		// One line per answer as soon as it is known: the test waits for each.
		if err := out.Flush(); err != nil {
			os.Exit(3)
		}
	}
}

// fetch sends one request and reports the status and whole (decoded) body, or why there is none.
func fetch(t *http.Transport, q query, timeout time.Duration) verdict {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, q.Method, q.URL, nil)
	if err != nil {
		return verdict{ID: q.ID, Error: "bad request: " + err.Error()}
	}
	// RoundTrip, not Client.Do: redirects are not followed, as the Deno client does not follow them.
	res, err := t.RoundTrip(req)
	if err != nil {
		return verdict{ID: q.ID, Error: err.Error()}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return verdict{ID: q.ID, Error: err.Error()}
	}
	return verdict{ID: q.ID, OK: true, Status: res.StatusCode, Body: body}
}
