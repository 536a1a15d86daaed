module kubeloop.test/http_oracle

go 1.26
