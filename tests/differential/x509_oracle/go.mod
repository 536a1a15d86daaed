module kubeloop.test/x509_oracle

go 1.26
