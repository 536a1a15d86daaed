package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"time"
)

// mintRequest asks for a client certificate signed by the test CA (or by a
// throwaway CA when untrusted is set), with the private key in a chosen format.
type mintRequest struct {
	CommonName string   `json:"cn"`
	Groups     []string `json:"groups"`
	// KeyType is one of rsa-pkcs1, rsa-pkcs8, ec-sec1, ec-pkcs8.
	KeyType   string `json:"keyType"`
	Expired   bool   `json:"expired"`
	Untrusted bool   `json:"untrusted"`
}

type mintResponse struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

func mint(ca *keyPair, req mintRequest) (*mintResponse, error) {
	var key crypto.Signer
	var keyPEM []byte
	switch req.KeyType {
	case "rsa-pkcs1", "rsa-pkcs8":
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		key = k
		if req.KeyType == "rsa-pkcs1" {
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
		} else {
			der, err := x509.MarshalPKCS8PrivateKey(k)
			if err != nil {
				return nil, err
			}
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
		}
	case "ec-sec1", "ec-pkcs8", "":
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		key = k
		if req.KeyType == "ec-sec1" {
			der, err := x509.MarshalECPrivateKey(k)
			if err != nil {
				return nil, err
			}
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
		} else {
			der, err := x509.MarshalPKCS8PrivateKey(k)
			if err != nil {
				return nil, err
			}
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
		}
	default:
		return nil, fmt.Errorf("unknown keyType %q", req.KeyType)
	}
	issuer := ca
	if req.Untrusted {
		other, err := sign(&x509.Certificate{
			Subject:  pkix.Name{CommonName: "untrusted-ca"},
			IsCA:     true,
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		}, nil)
		if err != nil {
			return nil, err
		}
		issuer = other
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	notBefore, notAfter := time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	if req.Expired {
		notBefore, notAfter = time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: req.CommonName, Organization: req.Groups},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer.cert, key.Public(), issuer.key)
	if err != nil {
		return nil, err
	}
	return &mintResponse{
		Cert: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		Key:  string(keyPEM),
	}, nil
}

// serveControl starts the test-only control endpoint on loopback:
//
//	POST /compact  compacts etcd at its current revision -> {"revision": N}
//	POST /mint     mints a client certificate (mintRequest) -> {"cert", "key"}
//
// plus the fault operations of addFaultRoutes.
func serveControl(ca *keyPair, etcdURL string, faults *faultControl) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /compact", func(w http.ResponseWriter, r *http.Request) {
		rev, err := compactEtcd(r.Context(), etcdURL)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]int64{"revision": rev})
	})
	mux.HandleFunc("POST /mint", func(w http.ResponseWriter, r *http.Request) {
		var req mintRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp, err := mint(ca, req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(resp)
	})
	addFaultRoutes(mux, faults)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}
