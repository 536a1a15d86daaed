package main

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

// etcdServer is the embedded etcd. The control endpoint may stop it and start it again on the same
// data directory and ports, so kube-apiserver sees an etcd outage and a recovery.
type etcdServer struct {
	mu                 sync.Mutex
	e                  *embed.Etcd
	dataDir, logPath   string
	clientURL, peerURL url.URL
}

// startEtcd runs a single-member etcd inside this process, listening on loopback only.
// Its log goes to logPath: etcd reports its own orderly shutdown at error level.
func startEtcd(dataDir, logPath string) (*etcdServer, string, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	s := &etcdServer{
		dataDir:   dataDir,
		logPath:   logPath,
		clientURL: url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(clientPort)},
		peerURL:   url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(peerPort)},
	}
	if err := s.start(); err != nil {
		return nil, "", err
	}
	return s, s.clientURL.String(), nil
}

// start runs etcd unless it is running, and waits until it serves.
func (s *etcdServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.e != nil {
		return errors.New("etcd is already running")
	}
	cfg := embed.NewConfig()
	cfg.Name = "testenv"
	cfg.Dir = s.dataDir
	cfg.UnsafeNoFsync = true // test data only; saves seconds per run on slow disks
	cfg.Logger = "zap"
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{s.logPath}
	cfg.ListenClientUrls = []url.URL{s.clientURL}
	cfg.AdvertiseClientUrls = []url.URL{s.clientURL}
	cfg.ListenPeerUrls = []url.URL{s.peerURL}
	cfg.AdvertisePeerUrls = []url.URL{s.peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
		s.e = e
		return nil
	case err := <-e.Err():
		e.Close()
		return err
	case <-time.After(60 * time.Second):
		e.Close()
		return errors.New("etcd not ready after 60s")
	}
}

// stop closes etcd (its listeners and every client connection) unless it is stopped.
func (s *etcdServer) stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.e == nil {
		return errors.New("etcd is not running")
	}
	s.e.Close()
	s.e = nil
	return nil
}

// Close stops etcd if it runs.
func (s *etcdServer) Close() { _ = s.stop() }

// compactEtcd compacts etcd's history up to its current revision, so that any
// older resourceVersion makes kube-apiserver answer 410 Gone once its watch
// cache no longer holds it. It returns the revision compacted at.
func compactEtcd(ctx context.Context, endpoint string) (int64, error) {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	resp, err := c.Get(ctx, "compact-probe")
	if err != nil {
		return 0, err
	}
	rev := resp.Header.Revision
	if _, err := c.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return 0, err
	}
	return rev, nil
}
