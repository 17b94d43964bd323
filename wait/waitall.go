package wait

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// WaitAll waits for every request concurrently, each on its own schedule,
// for example the request_ids of a storage attach. Entry i of the result is
// the last info seen for requestIDs[i] (nil if none); the error joins the
// per-request errors in input order. Duplicate ids are polled once. Invalid
// ids fail the call before any request. By default every request is waited
// for even if one fails. Under WithFailFast, the first failure stops the
// others: polls in flight are cancelled, and each id not waited for to the
// end gets an error wrapping ErrStopped (not context.Canceled), naming it
// and its last status.
//
// Each id is polled exactly as Wait would poll it alone (same delays, same
// deadline rule), but WaitAll does not hold a goroutine per id: one
// scheduler keeps the ids in order of their next poll and sends each when it
// is due, earliest first, with at most the Poller's concurrency of polls
// (and goroutines) in flight. Waiting for 10,000 ids costs memory for 10,000
// small records, not 10,000 stacks.
func (p *Poller) WaitAll(ctx context.Context, requestIDs ...string) ([]*gen.RequestInfoResponse, error) {
	out := make([]*gen.RequestInfoResponse, len(requestIDs))
	errs := make([]error, len(requestIDs))
	for i, id := range requestIDs {
		errs[i] = checkID(id)
	}
	if err := errors.Join(errs...); err != nil {
		return out, err
	}
	first := make(map[string]int, len(requestIDs))
	var pending []*pendingID
	for i, id := range requestIDs {
		if _, dup := first[id]; !dup {
			first[id] = i
			pending = append(pending, &pendingID{i: i, id: id})
		}
	}
	for _, e := range p.pollAll(ctx, pending) {
		if e.step != nil {
			out[e.i] = e.step.Info
		}
		errs[e.i] = e.err
	}
	for i, id := range requestIDs {
		out[i], errs[i] = out[first[id]], errs[first[id]]
		if i != first[id] {
			errs[i] = nil // a duplicate is reported once, under its first occurrence
		}
	}
	return out, errors.Join(errs...)
}

// pendingID is one id WaitAll is waiting for.
type pendingID struct {
	i    int // index of the id's first occurrence in WaitAll's arguments
	id   string
	step *Step // the last poll's outcome; nil before the first
	due  time.Time
	err  error // the error that ended the wait for this id
}

// dueOrder is a min-heap of ids by next poll time, then input order.
type dueOrder []*pendingID

func (h dueOrder) Len() int { return len(h) }
func (h dueOrder) Less(a, b int) bool {
	if c := h[a].due.Compare(h[b].due); c != 0 {
		return c < 0
	}
	return h[a].i < h[b].i
}
func (h dueOrder) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *dueOrder) Push(x any)   { *h = append(*h, x.(*pendingID)) }
func (h *dueOrder) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

// pollAll polls every id in ids until each has ended (Done or an error),
// sending each poll when it is due, with at most the Poller's concurrency of
// polls in flight. It returns ids with step and err filled in.
func (p *Poller) pollAll(parent context.Context, ids []*pendingID) []*pendingID {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	queue := make(dueOrder, len(ids))
	copy(queue, ids) // all due now, in input order
	// A fixed pool of workers sends the polls: the goroutines, like the
	// polls in flight, never exceed the Poller's concurrency.
	workers := min(p.cfg.concurrency, len(ids))
	work, answered := make(chan *pendingID, workers), make(chan *pendingID, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for e := range work {
				e.step, e.err = p.step(ctx, e.id, e.step)
				switch {
				case e.step.Reason == ReasonContext && parent.Err() == nil:
					// Only WithFailFast cancels ctx while parent lives.
					e.err = e.step.end(ReasonStopped, stoppedError(e.step))
				case e.err == nil && !e.step.Done:
					e.err = fitDeadline(ctx, e.step)
				}
				p.report(e.step, e.err)
				answered <- e
			}
		})
	}
	defer wg.Wait()
	defer close(work)
	inFlight := 0
	stopped := false // ctx ended, or a failure under WithFailFast: send no more polls
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		for !stopped && inFlight < workers && len(queue) > 0 && !queue[0].due.After(time.Now()) {
			inFlight++
			work <- heap.Pop(&queue).(*pendingID)
		}
		if inFlight == 0 && (stopped || len(queue) == 0) {
			break
		}
		var due <-chan time.Time
		if !stopped && inFlight < workers && len(queue) > 0 {
			timer.Reset(time.Until(queue[0].due))
			due = timer.C
		}
		var done <-chan struct{}
		if !stopped {
			done = ctx.Done()
		}
		select {
		case e := <-answered:
			inFlight--
			switch {
			case e.err != nil:
				// ctx's end (its deadline included) is not a failure to stop
				// the others for: it reaches them on their own schedules.
				if p.cfg.failFast && e.step.Reason != ReasonContext {
					cancel(ErrStopped)
					stopped = true
				}
			case !e.step.Done:
				e.due = time.Now().Add(e.step.Next)
				heap.Push(&queue, e)
			}
		case <-due:
		case <-done:
			stopped = true
		}
	}
	for _, e := range queue { // never polled again: ctx ended, or WithFailFast
		if e.step == nil {
			e.step = &Step{RequestID: e.id}
		}
		if parent.Err() != nil {
			e.err = e.step.end(ReasonContext, ctxError(parent, e.step))
		} else {
			e.err = e.step.end(ReasonStopped, stoppedError(e.step))
		}
		p.report(e.step, e.err)
	}
	return ids
}
