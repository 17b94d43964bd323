package wait

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// WaitAll waits for every request concurrently, each polled as Wait would poll it alone, to the
// end unless WithFailFast; duplicates are polled once, and invalid ids fail the call before any
// request. Entry i of the result is the last info seen for requestIDs[i] (nil if none); the error
// joins the per-request errors in input order. It holds no goroutine per id: 10,000 ids cost
// 10,000 small records, polled from the Poller's concurrency of goroutines.
func (p *Poller) WaitAll(ctx context.Context, requestIDs ...string) ([]*gen.RequestInfoResponse, error) {
	out := make([]*gen.RequestInfoResponse, len(requestIDs))
	errs := make([]error, len(requestIDs))
	first := make(map[string]int, len(requestIDs))
	var ids dueOrder
	for i, id := range requestIDs {
		if _, dup := first[id]; !dup {
			first[id] = i
			ids = append(ids, &pending{i: i, s: &Step{RequestID: id}})
		}
		errs[i] = checkID(id)
	}
	if err := errors.Join(errs...); err != nil {
		return out, err
	}
	for _, e := range p.pollAll(ctx, ids) {
		out[e.i], errs[e.i] = e.s.Info, e.err
	}
	for i, id := range requestIDs {
		out[i] = out[first[id]] // a duplicate's error is reported once, under its first occurrence
	}
	return out, errors.Join(errs...)
}

// pending is one id being waited for.
type pending struct {
	i   int   // index of its first occurrence in WaitAll's arguments
	s   *Step // the last poll's outcome
	due time.Time
	err error // the error that ended the wait for it
}

// dueOrder is a min-heap of ids by next poll time, then input order.
type dueOrder []*pending

func (h dueOrder) Len() int      { return len(h) }
func (h dueOrder) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h dueOrder) Less(a, b int) bool {
	return cmp.Or(h[a].due.Compare(h[b].due), cmp.Compare(h[a].i, h[b].i)) < 0
}
func (h *dueOrder) Push(x any)   { *h = append(*h, x.(*pending)) }
func (h *dueOrder) Pop() (e any) { *h, e = (*h)[:len(*h)-1], (*h)[len(*h)-1]; return e }

// pollAll polls every id (all due now, in input order) until each has
// ended, and returns them with s and err filled in.
func (p *Poller) pollAll(parent context.Context, queue dueOrder) dueOrder {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	all := slices.Clone(queue)
	workers := min(p.cfg.concurrency, len(queue))
	work, answered := make(chan *pending), make(chan *pending)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(work)
	for range workers {
		wg.Go(func() {
			for e := range work {
				e.s, e.err = p.step(ctx, e.s.RequestID, e.s)
				switch {
				case e.s.Reason == ReasonContext && ctx.Err() != nil && parent.Err() == nil: // WithFailFast cancelled ctx
					e.err = p.end(parent, e.s, nil)
				case e.err == nil && !e.s.Done:
					e.err = p.fitDeadline(ctx, e.s)
				}
				p.report(e.s, e.err)
				answered <- e
			}
		})
	}
	inFlight := 0
loop:
	for len(queue) > 0 || inFlight > 0 {
		for inFlight < workers && len(queue) > 0 && !queue[0].due.After(time.Now()) {
			inFlight++
			work <- heap.Pop(&queue).(*pending)
		}
		var due <-chan time.Time
		if inFlight < workers && len(queue) > 0 {
			due = time.After(time.Until(queue[0].due))
		}
		select {
		case e := <-answered:
			inFlight--
			switch {
			case e.err == nil && !e.s.Done:
				e.due = time.Now().Add(e.s.Next)
				heap.Push(&queue, e)
			case e.err != nil && p.cfg.failFast && e.s.Reason != ReasonContext:
				break loop // ctx's end is no such failure: it reaches each id on its own schedule
			}
		case <-due:
		case <-ctx.Done():
			break loop
		}
	}
	cancel() // WithFailFast: stops the polls in flight
	for ; inFlight > 0; inFlight-- {
		if e := <-answered; e.err == nil && !e.s.Done {
			queue = append(queue, e)
		}
	}
	for _, e := range queue { // never polled again: ctx ended, or WithFailFast
		e.err = p.end(parent, e.s, nil)
		p.report(e.s, e.err)
	}
	return all
}
