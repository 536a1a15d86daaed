package main

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// faultControl holds what the fault routes of the control endpoint act on.
type faultControl struct {
	apiserver *restartable
	etcd      *etcdServer
	// apiserverReady waits until kube-apiserver answers /readyz with 200.
	apiserverReady func(ctx context.Context) error
}

// addFaultRoutes registers the fault-injection operations (each answers with Unix times in ms):
//
//	POST /apiserver/kill   SIGKILL kube-apiserver, wait until it is gone -> {"killedAt"}
//	POST /apiserver/start  start it again (same flags, same etcd), wait for /readyz -> {"startedAt","readyAt"}
//	POST /etcd/stop        stop the embedded etcd (kube-apiserver keeps running) -> {"stoppedAt"}
//	POST /etcd/start       start etcd again on the same data dir and ports -> {"startedAt","readyAt"}
//	                       (readyAt: kube-apiserver's /readyz is 200 again)
func addFaultRoutes(mux *http.ServeMux, f *faultControl) {
	now := func() int64 { return time.Now().UnixMilli() }
	reply := func(w http.ResponseWriter, err error, body map[string]int64) {
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		_ = json.NewEncoder(w).Encode(body)
	}
	mux.HandleFunc("POST /apiserver/kill", func(w http.ResponseWriter, r *http.Request) {
		err := f.apiserver.kill(r.Context())
		logf("control: kube-apiserver killed (err: %v)", err)
		reply(w, err, map[string]int64{"killedAt": now()})
	})
	mux.HandleFunc("POST /apiserver/start", func(w http.ResponseWriter, r *http.Request) {
		started := now()
		err := f.apiserver.start()
		if err == nil {
			err = f.apiserverReady(r.Context())
		}
		logf("control: kube-apiserver started again (err: %v)", err)
		reply(w, err, map[string]int64{"startedAt": started, "readyAt": now()})
	})
	mux.HandleFunc("POST /etcd/stop", func(w http.ResponseWriter, r *http.Request) {
		err := f.etcd.stop()
		logf("control: etcd stopped (err: %v)", err)
		reply(w, err, map[string]int64{"stoppedAt": now()})
	})
	mux.HandleFunc("POST /etcd/start", func(w http.ResponseWriter, r *http.Request) {
		started := now()
		err := f.etcd.start()
		if err == nil {
			err = f.apiserverReady(r.Context())
		}
		logf("control: etcd started again (err: %v)", err)
		reply(w, err, map[string]int64{"startedAt": started, "readyAt": now()})
	})
}
