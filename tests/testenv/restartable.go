package main

import (
	"context"
	"errors"
	"sync"
	"syscall"
)

// restartable is a control-plane child process that the control endpoint may kill (SIGKILL, as a
// crash would) and start again with the same arguments. An exit it did not cause is reported on
// crashed, so testenv still stops when a component dies by itself.
type restartable struct {
	mu      sync.Mutex
	launch  func() (*child, error)
	cur     *child
	killed  bool
	crashed chan error
}

func newRestartable(launch func() (*child, error)) (*restartable, error) {
	r := &restartable{launch: launch, crashed: make(chan error, 1)}
	if err := r.start(); err != nil {
		return nil, err
	}
	return r, nil
}

// current is the process started last (it may have exited).
func (r *restartable) current() *child {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// start launches the process unless it is running.
func (r *restartable) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil && !isDone(r.cur.exited) {
		return errors.New("already running")
	}
	c, err := r.launch()
	if err != nil {
		return err
	}
	r.cur, r.killed = c, false
	go func() {
		<-c.exited
		r.mu.Lock()
		unexpected := r.cur == c && !r.killed
		r.mu.Unlock()
		if unexpected {
			select {
			case r.crashed <- c.err:
			default:
			}
		}
	}()
	return nil
}

// kill sends SIGKILL and waits until the process is gone.
func (r *restartable) kill(ctx context.Context) error {
	r.mu.Lock()
	c := r.cur
	if c == nil || isDone(c.exited) {
		r.mu.Unlock()
		return errors.New("not running")
	}
	r.killed = true
	r.mu.Unlock()
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop ends the current process gracefully (see child.stop).
func (r *restartable) stop() {
	r.mu.Lock()
	c := r.cur
	r.killed = true
	r.mu.Unlock()
	if c != nil && !isDone(c.exited) {
		c.stop()
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
