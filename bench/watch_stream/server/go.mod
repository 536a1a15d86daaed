module kubeloop.invalid/bench/watch_stream/server

go 1.26.0
