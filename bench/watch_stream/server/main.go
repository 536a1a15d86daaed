// A TLS HTTP/1.1 server for bench/watch_stream: every GET gets the same watch stream of -events
// ConfigMap events (~1.4 KB each, newline-delimited JSON, chunked), the way kube-apiserver frames a
// watch: one write per event, flushed after each event (-flush=each, a watch whose reader keeps up)
// or only when Go's 2 KiB response buffer fills (-flush=none, a burst). It generates its own CA and
// a P-256 server certificate for 127.0.0.1 (the key type tests/testenv uses), writes a kubeconfig
// that trusts only that CA, prints {"server","kubeconfig"} as one JSON line, and stops when its
// stdin closes.
//
//	watch-server -dir=DIR [-events=200000] [-flush=each|none]
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", "", "where to write ca.crt and kubeconfig")
	events := flag.Int("events", 200000, "events per watch response")
	flush := flag.String("flush", "each", "each: flush after every event; none: let the response buffer decide")
	flag.Parse()
	caPEM, cert := pki()
	body := render(*events)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	check(err)
	server := fmt.Sprintf("https://%s", ln.Addr())
	kubeconfig := filepath.Join(*dir, "kubeconfig")
	check(os.WriteFile(filepath.Join(*dir, "ca.crt"), caPEM, 0o600))
	check(os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: bench
  user:
    token: bench-token
contexts:
- name: bench
  context: {cluster: bench, user: bench, namespace: bench}
current-context: bench
`, server, base64.StdEncoding.EncodeToString(caPEM))), 0o600))
	line, _ := json.Marshal(map[string]string{"server": server, "kubeconfig": kubeconfig})
	fmt.Println(string(line))
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	each := *flush == "each"
	check(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		flusher := w.(http.Flusher)
		flusher.Flush()
		for _, event := range body {
			if _, err := w.Write(event); err != nil {
				return
			}
			if each {
				flusher.Flush()
			}
		}
	})))
}

// render builds the events once; each is a MODIFIED ConfigMap of ~1.4 KB ending in a newline.
func render(n int) [][]byte {
	out := make([][]byte, n)
	filler := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 3)
	for i := range out {
		data := map[string]string{}
		for k := 0; k < 8; k++ {
			data[fmt.Sprintf("setting-%d.properties", k)] = fmt.Sprintf("key.%d=%d-%s", k, i, filler[:72])
		}
		ev := map[string]any{"type": "MODIFIED", "object": map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{
				"name": fmt.Sprintf("bench-%06d", i), "namespace": "bench",
				"uid":               fmt.Sprintf("6f1c2a0e-0000-4000-8000-%012d", i),
				"resourceVersion":   fmt.Sprint(100000 + i),
				"creationTimestamp": "2026-01-01T00:00:00Z",
				"labels": map[string]string{
					"app.kubernetes.io/name": "bench", "app.kubernetes.io/instance": fmt.Sprintf("bench-%d", i%50),
					"app.kubernetes.io/part-of": "kubeloop",
				},
				"annotations": map[string]string{"kubeloop.dev/checksum": fmt.Sprintf("sha256:%064x", i)},
			},
			"data": data,
		}}
		b, err := json.Marshal(ev)
		check(err)
		out[i] = append(b, '\n')
	}
	return out
}

func pki() ([]byte, tls.Certificate) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	check(err)
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "watch-bench-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	check(err)
	ca, err := x509.ParseCertificate(caDER)
	check(err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	check(err)
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}, ca, &key.PublicKey, caKey)
	check(err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "watch-server:", err)
		os.Exit(1)
	}
}
