// The controller-runtime side of bench/webhook/run.ts: a validating webhook for Foo doing what kubeloop's
// reference controller does (deploymentName a DNS-1123 label, replicas from 1 to 10, 422 otherwise),
// written as a kubebuilder project writes it: webhook.NewServer with its certificate watcher, and HTTP/2
// off (kubebuilder's scaffold default since the 2023 HTTP/2 advisories), so the API server speaks
// HTTP/1.1 to both servers.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

type fooSpec struct {
	DeploymentName string `json:"deploymentName"`
	Replicas       *int64 `json:"replicas"`
}

type foo struct {
	Spec *fooSpec `json:"spec"`
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

type validator struct{}

func invalid(message string) admission.Response {
	return admission.Response{AdmissionResponse: admissionResponse(message)}
}

func (validator) Handle(_ context.Context, req admission.Request) admission.Response {
	var f foo
	if err := json.Unmarshal(req.Object.Raw, &f); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	spec := fooSpec{}
	if f.Spec != nil {
		spec = *f.Spec
	}
	if spec.DeploymentName == "" {
		return invalid("spec.deploymentName is required")
	}
	if len(spec.DeploymentName) > 63 || !dnsLabel.MatchString(spec.DeploymentName) {
		return invalid("spec.deploymentName must be a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit")
	}
	if spec.Replicas != nil && (*spec.Replicas < 1 || *spec.Replicas > 10) {
		return invalid("spec.replicas must be an integer from 1 to 10")
	}
	return admission.Allowed("")
}

func main() {
	port := flag.Int("port", 9443, "port on 127.0.0.1")
	certDir := flag.String("cert-dir", "", "directory with tls.crt and tls.key")
	flag.Parse()
	ctrllog.SetLogger(logr.Discard())
	server := webhook.NewServer(webhook.Options{
		Host:     "127.0.0.1",
		Port:     *port,
		CertDir:  *certDir,
		CertName: "tls.crt",
		KeyName:  "tls.key",
		TLSOpts:  []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	})
	server.Register("/validate/foos.validate.samplecontroller.k8s.io", &webhook.Admission{Handler: validator{}})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	fmt.Println("starting")
	if err := server.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
