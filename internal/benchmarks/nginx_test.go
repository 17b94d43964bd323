package benchmarks

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// nginxConf is a rate limiter in front of the engine at upstream: a zone
// per API key, capacity requests per second with a burst as large, served
// at once (nodelay); a refusal is a 429 with Retry-After: 1.
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	limit_req_zone $http_authorization zone=perkey:1m rate=%[2]dr/s;
	limit_req_status 429;
	upstream engine { server %[3]s; keepalive 64; }
	server {
		listen %[4]s;
		location / {
			limit_req zone=perkey burst=%[2]d nodelay;
			proxy_pass http://engine;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
		}
		error_page 429 = @limited;
		location @limited {
			default_type application/json;
			add_header Retry-After 1 always;
			return 429 '{"detail":"Too Many Requests"}';
		}
	}
}
`

// startNginx starts Debian's nginx on a free loopback port, limiting
// requests to upstream (host:port) at capacity per key, and returns its
// base URL; it stops with t. It skips t when nginx is not installed.
func startNginx(t *testing.T, upstream string, capacity int) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin, err = exec.LookPath("/usr/sbin/nginx") // Debian's, off a non-root PATH
	}
	switch {
	case err != nil && os.Getenv("TENSORPOOL_NGINX") != "":
		t.Fatal("nginx is not installed (apt-get install nginx; .ci/setup peers installs it)")
	case err != nil:
		t.Skip("nginx is not installed (apt-get install nginx; make bench and make check-peers install it)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, nginxConf, dir, capacity, upstream, addr), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not listen on %s within 10 s: %s", addr, log)
		}
	}
}

// runNginx runs c against nginx's limit_req in front of tensorpooltest,
// in real time; zero figures if nginx is not installed, unless
// TENSORPOOL_NGINX is set: then it fails.
func runNginx(t *testing.T, c rlCase, pending time.Duration) rlFigures {
	var f rlFigures
	t.Run(fmt.Sprintf("nginx/%d-ids/%d-pollers", c.ids, c.pollers), func(t *testing.T) {
		srv := tensorpooltest.NewServer(t, tensorpooltest.WithRetryAfter(rlHint, tensorpooltest.RetryAfterSeconds))
		u, _ := url.Parse(srv.URL)
		base := startNginx(t, u.Host, c.capacity)
		log := newRLLog()
		ids := make([]string, c.ids)
		for i := range ids {
			srv.Engine.QueueLifecycles(tensorpooltest.Succeed(pending/2, pending-pending/2))
			sid := fmt.Sprintf("s-%d", i)
			srv.Engine.AddStorage(tensorpooltest.Storage{ID: sid})
			r, err := srv.RawClient.StorageDestroyWithResponse(context.Background(), sid)
			if err != nil {
				t.Fatal(err)
			}
			if r.JSON202 == nil || r.JSON202.RequestID == nil {
				t.Fatalf("storage destroy: status %d", r.StatusCode())
			}
			ids[i] = *r.JSON202.RequestID
			log.complete[ids[i]] = time.Now().Add(pending)
		}
		log.start = time.Now()
		f = runRateLimited(t, c, ids, base, func(int) http.RoundTripper { return http.DefaultTransport.(*http.Transport).Clone() }, log)
	})
	return f
}
