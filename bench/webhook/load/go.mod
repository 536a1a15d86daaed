module kubeloop.invalid/bench/webhook/load

go 1.26.0
