// Command quickstart walks the asynchronous TensorPool flow with the real
// client and package wait: attach and wait, a 409, destroy and wait, a FAILED
// request. By default it runs against the built-in engine (package
// tensorpooltest) on a loopback port, in about ten seconds, and never touches
// an account, even with TENSORPOOL_KEY set. With -live it acts on the ids you
// give through the TensorPool API, with the key in TENSORPOOL_KEY
// (TENSORPOOL_ENGINE overrides the URL), and asks before destroying:
//
//	go run ./examples/quickstart
//	go run ./examples/quickstart -live -storage s-abc -cluster c-123
//	go run ./examples/quickstart -live -storage s-abc -destroy [-yes]
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, env{args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

// env is what run takes from the process, so a test can run it.
type env struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	inProcess      bool // serve the built-in engine through its RoundTrip, for a synctest bubble
}

func run(ctx context.Context, e env) int {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	live := fs.Bool("live", false, "run against the TensorPool API with $TENSORPOOL_KEY, on -storage and -cluster")
	storage := fs.String("storage", "", "storage volume id (-live only)")
	cluster := fs.String("cluster", "", "cluster id to attach -storage to (-live only)")
	destroy := fs.Bool("destroy", false, "destroy -storage (-live only; asks first)")
	yes := fs.Bool("yes", false, "do not ask before destroying (-live only)")
	if err := fs.Parse(e.args); err != nil {
		return 2
	}
	if !*live && (*storage != "" || *cluster != "" || *destroy || *yes) {
		fmt.Fprintln(e.stderr, "quickstart: -storage, -cluster, -destroy and -yes act on your account: add -live")
		return 2
	}
	d := &demo{out: e.stdout}
	var err error
	if *live {
		err = d.live(ctx, e.stdin, *storage, *cluster, *destroy, *yes)
	} else {
		err = d.builtIn(ctx, e.inProcess)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "quickstart: %v\n", err)
		return 1
	}
	return 0
}

// demo is one run's client, poller and output.
type demo struct {
	out    io.Writer
	client *gen.ClientWithResponses
	poller *wait.Poller
}

func (d *demo) connect(opts ...tensorpool.Option) error {
	c, err := tensorpool.NewClient(opts...)
	if err != nil {
		return err
	}
	d.client, d.poller = c, wait.New(c, wait.WithProgress(d.progress))
	return nil
}

// progress prints what one poll returned.
func (d *demo) progress(u wait.Update) {
	line := fmt.Sprintf("   %-12s %-10s", u.RequestID, u.Status)
	if u.Message != "" {
		line += fmt.Sprintf(" %q", u.Message)
	}
	if u.Err != nil && !errors.Is(u.Err, wait.ErrFailed) {
		line += " (" + u.Err.Error() + ")"
	}
	if u.Next > 0 {
		line += fmt.Sprintf("  next poll in %.1fs (%s)", u.Next.Seconds(), u.Reason)
	}
	fmt.Fprintln(d.out, line)
}

// builtIn runs the whole tour against the built-in engine.
func (d *demo) builtIn(ctx context.Context, inProcess bool) error {
	start := time.Now()
	// Short but real durations: each request shows its states, and the
	// engine's Retry-After (1 s) paces the polls.
	engine := tensorpooltest.New(
		tensorpooltest.WithLifecycle(tensorpooltest.Succeed(time.Second, 1500*time.Millisecond)),
		tensorpooltest.WithRetryAfter(time.Second, tensorpooltest.RetryAfterSeconds))
	for _, id := range []string{"s-datasets", "s-checkpoints", "s-scratch", "s-archive"} {
		engine.AddStorage(tensorpooltest.Storage{ID: id})
	}
	for _, id := range []string{"c-train", "c-eval", "c-spare"} {
		engine.AddCluster(tensorpooltest.Cluster{ID: id})
	}
	url, hc := tensorpooltest.InProcessURL, engine.HTTPClient() // plain http that never leaves the process
	if !inProcess {
		srv := httptest.NewServer(engine)
		defer srv.Close()
		url, hc = srv.URL, srv.Client()
	}
	if err := d.connect(tensorpool.WithAPIKey(engine.APIKey()), tensorpool.WithBaseURL(url),
		tensorpool.WithHTTPClient(hc), tensorpool.WithInsecureHTTP()); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "Running against the built-in engine (package tensorpooltest), not your account; -live uses the API.")

	fmt.Fprintln(d.out, "\n1. Attach two volumes to two clusters, then wait for every request id")
	if err := d.attach(ctx, [2]string{"s-datasets", "c-train"}, [2]string{"s-checkpoints", "c-eval"}); err != nil {
		return err
	}

	fmt.Fprintln(d.out, "\n2. Destroy a volume that is still attached: the API refuses")
	_, err := d.client.StorageDestroyWithResponse(ctx, "s-datasets")
	var apiErr *tensorpool.APIError
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("destroying an attached volume: want an *APIError, got %v", err)
	}
	fmt.Fprintf(d.out, "   err: %v\n   errors.As(err, &apiErr): status %d; tensorpool.IsStatus(err, http.StatusConflict) = %t\n",
		err, apiErr.StatusCode, tensorpool.IsStatus(err, http.StatusConflict))

	fmt.Fprintln(d.out, "\n3. Destroy an unattached volume and wait")
	if err := d.destroy(ctx, "s-scratch"); err != nil {
		return err
	}

	fmt.Fprintln(d.out, "\n4. A request that the server fails")
	engine.QueueLifecycles(tensorpooltest.Fail(time.Second, time.Second, "No capacity for storage in this region"))
	err = d.attach(ctx, [2]string{"s-archive", "c-spare"})
	var failed *wait.Error
	if !errors.Is(err, wait.ErrFailed) || !errors.As(err, &failed) {
		return fmt.Errorf("want a failed request, got %v", err)
	}
	fmt.Fprintf(d.out, "   err: %v\n   errors.Is(err, wait.ErrFailed) = true; request %s, Info.Status = %s\n",
		err, failed.RequestID, failed.Info.Status)

	// wait sends each poll once (the client retries none), so the engine's
	// count is the number of polls.
	fmt.Fprintf(d.out, "\nDone: %d polls in %.1fs.\n", engine.Calls("GET /request/info/{request_id}"), time.Since(start).Seconds())
	return nil
}

// live runs the flow on the caller's own resources.
func (d *demo) live(ctx context.Context, stdin io.Reader, storage, cluster string, destroy, yes bool) error {
	if storage == "" || (cluster == "" && !destroy) {
		return errors.New("-live needs -storage, and -cluster (attach), -destroy, or both")
	}
	if err := d.connect(); err != nil { // $TENSORPOOL_KEY, and $TENSORPOOL_ENGINE if set
		return err
	}
	fmt.Fprintln(d.out, "-live: running against the TensorPool API.")
	if cluster != "" {
		fmt.Fprintf(d.out, "\nAttach %s to %s (this restarts the cluster's nodes), then wait\n", storage, cluster)
		if err := d.attach(ctx, [2]string{storage, cluster}); err != nil {
			return err
		}
	}
	if !destroy {
		return nil
	}
	fmt.Fprintf(d.out, "\nDestroy %s, then wait\n", storage)
	if !yes {
		fmt.Fprintf(d.out, "   Destroy storage volume %s? This cannot be undone. [y/N] ", storage)
		a, _ := bufio.NewReader(stdin).ReadString('\n')
		if a = strings.ToLower(strings.TrimSpace(a)); a != "y" && a != "yes" {
			fmt.Fprintln(d.out, "   not destroyed.")
			return nil
		}
	}
	return d.destroy(ctx, storage)
}

// attach attaches each volume to its cluster, then waits for every request.
func (d *demo) attach(ctx context.Context, volumeCluster ...[2]string) error {
	var ids []string
	for _, vc := range volumeCluster {
		resp, err := d.client.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: vc[0], ClusterIDs: []string{vc[1]}})
		if err != nil {
			return err
		}
		fmt.Fprintf(d.out, "   POST /storage/attach %s -> %s: %d %s, request_ids %v\n",
			vc[0], vc[1], resp.StatusCode(), resp.JSON202.Message, resp.JSON202.RequestIDs)
		ids = append(ids, resp.JSON202.RequestIDs...)
	}
	return d.wait(ctx, ids...)
}

// destroy destroys a volume, then waits for its request.
func (d *demo) destroy(ctx context.Context, storage string) error {
	resp, err := d.client.StorageDestroyWithResponse(ctx, storage)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "   DELETE /storage/%s: %d %s\n", storage, resp.StatusCode(), resp.JSON202.Message)
	if resp.JSON202.RequestID == nil {
		return nil // the spec allows null: nothing to wait for
	}
	return d.wait(ctx, *resp.JSON202.RequestID)
}

// wait waits for requests, printing every poll, and says how long it took.
func (d *demo) wait(ctx context.Context, ids ...string) error {
	start := time.Now()
	if _, err := d.poller.WaitAll(ctx, ids...); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "   all %d request(s) COMPLETED after %.1fs\n", len(ids), time.Since(start).Seconds())
	return nil
}
