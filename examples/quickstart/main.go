// Command quickstart walks the asynchronous TensorPool flow with the real
// client: attach storage to clusters and wait for every request, see a 409,
// destroy a volume and wait, and see what a FAILED request looks like.
//
// Without TENSORPOOL_KEY it runs against the built-in engine (package
// tensorpooltest) on a loopback port, in about ten seconds:
//
//	go run ./examples/quickstart
//
// With TENSORPOOL_KEY set it runs against the real API (TENSORPOOL_ENGINE
// overrides the URL) on the ids you give, and asks before destroying:
//
//	go run ./examples/quickstart -storage s-abc -cluster c-123
//	go run ./examples/quickstart -storage s-abc -destroy [-yes]
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, env{
		args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, tty: isTerminal(os.Stdout),
	}))
}

// env is everything run takes from the process, so a test can run it.
type env struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	tty            bool
	// inProcess serves the built-in engine through its RoundTrip method
	// instead of a loopback socket, so a test can run in a synctest bubble.
	inProcess bool
	// httpClient, when set, carries the real-API mode's requests (tests).
	httpClient *http.Client
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// demo is one run's client, poller and counters.
type demo struct {
	out    io.Writer
	client *gen.ClientWithResponses
	poller *wait.Poller
	prog   *progress

	mu       sync.Mutex
	polls    int
	attempts map[string]int // per request id, the last Update's Attempt
}

func run(ctx context.Context, e env) int {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	storage := fs.String("storage", "", "storage volume id (real API only)")
	cluster := fs.String("cluster", "", "cluster id to attach -storage to (real API only)")
	destroy := fs.Bool("destroy", false, "destroy -storage (real API only; asks first)")
	yes := fs.Bool("yes", false, "do not ask before destroying")
	if err := fs.Parse(e.args); err != nil {
		return 2
	}
	start := time.Now()
	columns, _ := strconv.Atoi(e.getenv("COLUMNS"))
	d := &demo{out: e.stdout, prog: newProgress(e.stdout, e.tty, columns)}
	var err error
	if e.getenv("TENSORPOOL_KEY") == "" {
		err = d.simulated(ctx, e)
	} else {
		err = d.real(ctx, e, *storage, *cluster, *destroy, *yes)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "quickstart: %v\n", err)
		return 1
	}
	fmt.Fprintf(e.stdout, "\nDone: %d polls in %.1fs.\n", d.pollCount(), time.Since(start).Seconds())
	return 0
}

func (d *demo) connect(opts ...tensorpool.Option) error {
	c, err := tensorpool.NewClient(opts...)
	if err != nil {
		return err
	}
	d.client = c
	d.poller = wait.New(c, wait.WithProgress(func(u wait.Update) {
		d.countPolls(u)
		msg := u.Message
		if u.Err != nil && u.Status != gen.RequestStatusFAILED {
			msg = "transient: " + u.Err.Error()
		}
		d.prog.update(u.RequestID, string(u.Status), msg, u.Attempt, u.Next, string(u.Reason))
	}))
	return nil
}

// pollCount is the polls counted so far.
func (d *demo) pollCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.polls
}

// countPolls adds the polls u reports: Attempt counts a request's polls, and
// an Update that ends a wait without polling (ctx ended, fail-fast) repeats
// the last one.
func (d *demo) countPolls(u wait.Update) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.attempts == nil {
		d.attempts = map[string]int{}
	}
	if u.Attempt > d.attempts[u.RequestID] {
		d.polls += u.Attempt - d.attempts[u.RequestID]
		d.attempts[u.RequestID] = u.Attempt
	}
}

// simulated runs the whole tour against the built-in engine.
func (d *demo) simulated(ctx context.Context, e env) error {
	// Short but real durations: each request shows its states, and the
	// engine's Retry-After (1 s) paces the polls.
	engine := tensorpooltest.New(
		tensorpooltest.WithLifecycle(tensorpooltest.Lifecycle{
			{Status: gen.RequestStatusPENDING, For: time.Second},
			{Status: gen.RequestStatusPROCESSING, For: 1500 * time.Millisecond},
			{Status: gen.RequestStatusCOMPLETED},
		}),
		tensorpooltest.WithRetryAfter(time.Second, tensorpooltest.RetryAfterSeconds),
	)
	for _, id := range []string{"s-datasets", "s-checkpoints", "s-scratch", "s-archive"} {
		engine.AddStorage(tensorpooltest.Storage{ID: id})
	}
	for _, id := range []string{"c-train", "c-eval", "c-spare"} {
		engine.AddCluster(tensorpooltest.Cluster{ID: id})
	}
	opts := []tensorpool.Option{tensorpool.WithAPIKey(engine.APIKey())}
	if e.inProcess {
		opts = append(opts, tensorpool.WithBaseURL(tensorpooltest.InProcessURL),
			tensorpool.WithInsecureHTTP(), tensorpool.WithHTTPClient(engine.HTTPClient()))
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: engine, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		opts = append(opts, tensorpool.WithBaseURL("http://"+ln.Addr().String()))
	}
	if err := d.connect(opts...); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "No TENSORPOOL_KEY set: running against the built-in engine (package tensorpooltest).")

	d.step(1, "Attach two volumes to two clusters, then wait for every request id")
	var ids []string
	for _, p := range [][2]string{{"s-datasets", "c-train"}, {"s-checkpoints", "c-eval"}} {
		got, err := d.attach(ctx, p[0], p[1])
		if err != nil {
			return err
		}
		ids = append(ids, got...)
	}
	if err := d.waitAll(ctx, ids); err != nil {
		return err
	}

	d.step(2, "Destroy a volume that is still attached: the API refuses")
	_, err := tensorpool.Check(d.client.StorageDestroyWithResponse(ctx, "s-datasets"))
	var apiErr *tensorpool.APIError
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("destroying an attached volume: want an *APIError, got %v", err)
	}
	fmt.Fprintf(d.out, "   err: %v\n   errors.As(err, &apiErr): status %d; tensorpool.IsConflict(err) = %t\n",
		err, apiErr.StatusCode, tensorpool.IsConflict(err))

	d.step(3, "Destroy an unattached volume and wait")
	if err := d.destroy(ctx, "s-scratch"); err != nil {
		return err
	}

	d.step(4, "A request that the server fails")
	engine.QueueLifecycles(tensorpooltest.Fail(time.Second, time.Second, "No capacity for storage in this region"))
	ids, err = d.attach(ctx, "s-archive", "c-spare")
	if err != nil {
		return err
	}
	err = d.waitAll(ctx, ids)
	var failed *wait.FailedError
	if !errors.Is(err, wait.ErrFailed) || !errors.As(err, &failed) {
		return fmt.Errorf("want a failed request, got %v", err)
	}
	fmt.Fprintf(d.out, "   err: %v\n   errors.Is(err, wait.ErrFailed) = true; FailedError.Info.Status = %s\n",
		err, failed.Info.Status)
	return nil
}

// real runs the flow on the caller's own resources.
func (d *demo) real(ctx context.Context, e env, storage, cluster string, destroy, yes bool) error {
	if storage == "" || (cluster == "" && !destroy) {
		return errors.New("with TENSORPOOL_KEY set, give -storage and -cluster (attach), and/or -destroy")
	}
	opts := []tensorpool.Option{tensorpool.WithAPIKey(e.getenv("TENSORPOOL_KEY"))}
	if u := e.getenv("TENSORPOOL_ENGINE"); u != "" {
		opts = append(opts, tensorpool.WithBaseURL(u))
	}
	if e.httpClient != nil { // tests: an in-process engine at a plain-http URL
		opts = append(opts, tensorpool.WithHTTPClient(e.httpClient), tensorpool.WithInsecureHTTP())
	}
	if err := d.connect(opts...); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "TENSORPOOL_KEY is set: running against the TensorPool API.")
	n := 0
	if cluster != "" {
		n++
		d.step(n, fmt.Sprintf("Attach %s to %s (this restarts the cluster's nodes), then wait", storage, cluster))
		ids, err := d.attach(ctx, storage, cluster)
		if err != nil {
			return err
		}
		if err := d.waitAll(ctx, ids); err != nil {
			return err
		}
	}
	if destroy {
		n++
		d.step(n, "Destroy "+storage+", then wait")
		if !yes && !confirm(e.stdin, d.out, "Destroy storage volume "+storage+"? This cannot be undone. [y/N] ") {
			fmt.Fprintln(d.out, "   not destroyed.")
			return nil
		}
		return d.destroy(ctx, storage)
	}
	return nil
}

func confirm(in io.Reader, out io.Writer, question string) bool {
	fmt.Fprint(out, "   "+question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

func (d *demo) step(n int, title string) { fmt.Fprintf(d.out, "\n%d. %s\n", n, title) }

func (d *demo) attach(ctx context.Context, storage, cluster string) ([]string, error) {
	resp, err := tensorpool.Check(d.client.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
		StorageID: storage, ClusterIDs: []string{cluster},
	}))
	if err != nil {
		return nil, err
	}
	ids := resp.JSON202.RequestIDs
	fmt.Fprintf(d.out, "   POST /storage/attach %s -> %s: %d %s, request_ids %v\n",
		storage, cluster, resp.StatusCode(), resp.JSON202.Message, ids)
	return ids, nil
}

func (d *demo) destroy(ctx context.Context, storage string) error {
	resp, err := tensorpool.Check(d.client.StorageDestroyWithResponse(ctx, storage))
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "   DELETE /storage/%s: %d %s\n", storage, resp.StatusCode(), resp.JSON202.Message)
	if resp.JSON202.RequestID == nil {
		return nil // nothing to wait for
	}
	return d.waitAll(ctx, []string{*resp.JSON202.RequestID})
}

// waitAll waits for ids with live progress and reports how long it took.
func (d *demo) waitAll(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	start := time.Now()
	d.prog.begin(ids...)
	_, err := d.poller.WaitAll(ctx, ids...)
	d.prog.end()
	if err == nil {
		fmt.Fprintf(d.out, "   all %d request(s) COMPLETED after %.1fs\n", len(ids), time.Since(start).Seconds())
	}
	return err
}
