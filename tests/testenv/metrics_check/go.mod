// The metrics checker the tests run (see main.go). Every version here is the one tests/testenv's
// Kubernetes build list already uses, so building it downloads nothing new; it is a module of its own so
// that changing it never changes the Kubernetes build key in ../build.sh.
module kubeloop.invalid/metricscheck

go 1.26.0

require (
	github.com/prometheus/client_golang v1.24.0
	github.com/prometheus/client_model v0.6.2
	github.com/prometheus/common v0.70.0
)

require (
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	google.golang.org/protobuf v1.36.12-0.20260120151049-f2248ac996af // indirect
)
