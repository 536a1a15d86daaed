// Command x509_oracle answers, for each scenario read from stdin (one JSON object a line), the verdict of
// Go's crypto/x509 on a server's certificate chain as crypto/tls asks for it as a client:
// Certificate.Verify with Roots, Intermediates, DNSName, CurrentTime and KeyUsages serverAuth. It writes
// one JSON object a line to stdout, in input order. Standard library only.
package main

import (
	"bufio"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"
)

// scenario is one question: PEM texts (the roots and intermediates may hold several certificates),
// the name the client connects to (a DNS name or an IP address) and the time in Unix milliseconds.
type scenario struct {
	ID            string `json:"id"`
	Roots         string `json:"roots"`
	Intermediates string `json:"intermediates"`
	Leaf          string `json:"leaf"`
	Name          string `json:"name"`
	TimeMs        int64  `json:"timeMs"`
}

// answer is Go's verdict: ok, or a reason class and Go's own message.
type answer struct {
	ID     string `json:"id"`
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var s scenario
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			fmt.Fprintln(os.Stderr, "x509_oracle: bad input line:", err)
			os.Exit(2)
		}
		if err := enc.Encode(verify(s)); err != nil {
			fmt.Fprintln(os.Stderr, "x509_oracle:", err)
			os.Exit(2)
		}
		// One answer per line as soon as it is known: the caller may wait for each.
		if err := out.Flush(); err != nil {
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "x509_oracle:", err)
		os.Exit(2)
	}
}

func verify(s scenario) answer {
	leaves := certificates(s.Leaf)
	if len(leaves) != 1 {
		return answer{ID: s.ID, Reason: "parse", Detail: "want exactly one leaf PEM block"}
	}
	leaf, err := x509.ParseCertificate(leaves[0])
	if err != nil {
		return answer{ID: s.ID, Reason: "parse", Detail: err.Error()}
	}
	opts := x509.VerifyOptions{
		Roots:         pool(s.Roots),
		Intermediates: pool(s.Intermediates),
		DNSName:       s.Name,
		CurrentTime:   time.UnixMilli(s.TimeMs),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if _, err := leaf.Verify(opts); err != nil {
		return answer{ID: s.ID, Reason: reason(err), Detail: err.Error()}
	}
	return answer{ID: s.ID, OK: true}
}

// pool holds every certificate of the PEM text that parses; like CertPool.AppendCertsFromPEM, one that
// does not parse is left out.
func pool(text string) *x509.CertPool {
	p := x509.NewCertPool()
	for _, der := range certificates(text) {
		if c, err := x509.ParseCertificate(der); err == nil {
			p.AddCert(c)
		}
	}
	return p
}

func certificates(text string) [][]byte {
	var out [][]byte
	rest := []byte(text)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return out
		}
		if block.Type == "CERTIFICATE" {
			out = append(out, block.Bytes)
		}
	}
}

// reason is a short class of Go's error, for the report; the verdict compared is ok or not.
func reason(err error) string {
	var invalid x509.CertificateInvalidError
	var hostname x509.HostnameError
	var unknown x509.UnknownAuthorityError
	var critical x509.UnhandledCriticalExtension
	switch {
	case errors.As(err, &invalid):
		switch invalid.Reason {
		case x509.Expired:
			return "expired"
		case x509.NotAuthorizedToSign:
			return "not-a-ca"
		case x509.TooManyIntermediates:
			return "path-length"
		case x509.IncompatibleUsage:
			return "key-usage"
		case x509.CANotAuthorizedForThisName:
			return "name-constraints"
		case x509.NoValidChains:
			return "no-valid-chain"
		default:
			return fmt.Sprintf("invalid-%d", invalid.Reason)
		}
	case errors.As(err, &hostname):
		return "name"
	case errors.As(err, &unknown):
		return "unknown-authority"
	case errors.As(err, &critical):
		return "critical-extension"
	default:
		return "other"
	}
}
