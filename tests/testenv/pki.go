package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// keyPair is a certificate with its private key, in parsed and PEM form.
type keyPair struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
	keyPEM  []byte
}

func newECKey() (crypto.Signer, []byte, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	return k, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// sign issues tmpl signed by parent; a nil parent makes a self-signed certificate.
func sign(tmpl *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, keyPEM, err := newECKey()
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.BasicConstraintsValid = true
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(365 * 24 * time.Hour)
	issuer, issuerKey := tmpl, key
	if parent != nil {
		issuer, issuerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), issuerKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &keyPair{cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM}, nil
}

// pki holds everything the control plane and its first client need.
type pki struct {
	ca, serving, admin *keyPair
}

// makePKI writes ca.crt/ca.key, apiserver.crt/.key, admin.crt/.key and the
// service-account key pair sa.key/sa.pub into dir. The CA key is written so
// tests can mint further client certificates (other users, key formats).
func makePKI(dir string) (*pki, error) {
	ca, err := sign(&x509.Certificate{
		Subject:  pkix.Name{CommonName: "kubeloop-testenv-ca"},
		IsCA:     true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}, nil)
	if err != nil {
		return nil, err
	}
	serving, err := sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback, net.ParseIP("10.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca)
	if err != nil {
		return nil, err
	}
	admin, err := sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kubeloop-admin", Organization: []string{"system:masters"}},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, ca)
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saDER, err := x509.MarshalPKCS8PrivateKey(saKey)
	if err != nil {
		return nil, err
	}
	saPubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	caKeyDER, err := x509.MarshalPKCS8PrivateKey(ca.key)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"ca.crt":        ca.certPEM,
		"ca.key":        pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: caKeyDER}),
		"apiserver.crt": serving.certPEM,
		"apiserver.key": serving.keyPEM,
		"admin.crt":     admin.certPEM,
		"admin.key":     admin.keyPEM,
		"sa.key":        pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: saDER}),
		"sa.pub":        pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPubDER}),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	return &pki{ca: ca, serving: serving, admin: admin}, nil
}
