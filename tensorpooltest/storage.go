package tensorpooltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// Storage is a storage volume, as a test seeds it (AddStorage) or reads it
// back (Storage).
type Storage struct {
	// ID is the volume's id; the API requires it to start with "s-".
	ID string
	// DeletionProtection makes DELETE /storage/{id} answer 409.
	DeletionProtection bool
	// NotReady marks a volume still being provisioned: attaching it answers
	// 409 ("storage not ready"). A volume with a request in flight answers
	// 409 "busy" instead.
	NotReady bool
	// AttachedTo lists the clusters the volume is attached to, sorted.
	// AddStorage attaches the volume to these clusters, which must exist.
	AttachedTo []string
}

// Cluster is a cluster, as a test seeds it (AddCluster) or reads it back
// (Cluster).
type Cluster struct {
	// ID is the cluster's id. Guess: the engine requires no format (the seeds
	// give none; the README's examples use "c-...").
	ID string
	// Ineligible marks a cluster that cannot have storage attached:
	// attaching answers 400 ("cluster not eligible").
	Ineligible bool
	// Storage is the id of the volume attached to the cluster, or "".
	Storage string
}

// link attaches volume s to cluster cl, on both sides.
func link(s *Storage, cl *Cluster) {
	cl.Storage = s.ID
	if !slices.Contains(s.AttachedTo, cl.ID) {
		s.AttachedTo = append(s.AttachedTo, cl.ID)
		slices.Sort(s.AttachedTo)
	}
}

// AddStorage adds a storage volume, replacing any with the same id, and
// keeps both sides of every attachment in step: the clusters in AttachedTo
// get the volume, and clusters a replaced volume had but s does not lose it.
// It panics on seed data that cannot be: an id without the "s-" prefix, an
// unknown cluster in AttachedTo, a cluster that already holds another volume
// (a cluster holds at most one) or has an attach in flight, or replacing a
// volume with a request in flight.
func (e *Engine) AddStorage(s Storage) {
	if !strings.HasPrefix(s.ID, "s-") {
		panic(fmt.Sprintf("tensorpooltest: storage id %q does not start with \"s-\"", s.ID))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(time.Now())
	for _, c := range s.AttachedTo {
		cl, ok := e.clusters[c]
		if !ok {
			panic(fmt.Sprintf("tensorpooltest: storage %s attached to unknown cluster %q", s.ID, c))
		}
		if cl.Storage != "" && cl.Storage != s.ID {
			panic(fmt.Sprintf("tensorpooltest: storage %s attached to cluster %s, which holds storage %s", s.ID, c, cl.Storage))
		}
		if id := e.busy(nil, cl); id != "" {
			panic(fmt.Sprintf("tensorpooltest: storage %s attached to cluster %s while request %s is in flight to it", s.ID, c, id))
		}
	}
	if old, ok := e.storages[s.ID]; ok {
		if id := e.busy(old, nil); id != "" {
			panic(fmt.Sprintf("tensorpooltest: storage %s replaced while request %s is in flight on it", s.ID, id))
		}
		for _, c := range old.AttachedTo {
			e.clusters[c].Storage = ""
		}
	}
	clusters := s.AttachedTo
	s.AttachedTo = nil
	for _, c := range clusters {
		link(&s, e.clusters[c])
	}
	e.storages[s.ID] = &s
}

// AddCluster adds a cluster, replacing any with the same id, and keeps both
// sides of the attachment in step: a non-empty Storage must name a volume
// added before, which lists the cluster in its AttachedTo; a replaced
// cluster's former volume no longer does. It panics on an unknown volume, a
// volume with a request in flight, or replacing a cluster with an attach in
// flight to it.
func (e *Engine) AddCluster(c Cluster) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(time.Now())
	s := e.storages[c.Storage]
	if c.Storage != "" {
		if s == nil {
			panic(fmt.Sprintf("tensorpooltest: cluster %s attached to unknown storage %q", c.ID, c.Storage))
		}
		if id := e.busy(s, nil); id != "" {
			panic(fmt.Sprintf("tensorpooltest: cluster %s attached to storage %s while request %s is in flight on it", c.ID, c.Storage, id))
		}
	}
	if old, ok := e.clusters[c.ID]; ok {
		if id := e.busy(nil, old); id != "" {
			panic(fmt.Sprintf("tensorpooltest: cluster %s replaced while request %s is in flight to it", c.ID, id))
		}
		if prev := e.storages[old.Storage]; prev != nil {
			prev.AttachedTo = slices.DeleteFunc(prev.AttachedTo, func(id string) bool { return id == c.ID })
		}
	}
	if s != nil {
		link(s, &c)
	}
	e.clusters[c.ID] = &c
}

// Storage returns the volume with this id as of now, and whether it exists
// (a volume whose destroy request completed does not).
func (e *Engine) Storage(id string) (Storage, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(time.Now())
	s, ok := e.storages[id]
	if !ok {
		return Storage{}, false
	}
	out := *s
	out.AttachedTo = slices.Clone(s.AttachedTo)
	return out, true
}

// Cluster returns the cluster with this id as of now, and whether it exists.
func (e *Engine) Cluster(id string) (Cluster, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(time.Now())
	c, ok := e.clusters[id]
	if !ok {
		return Cluster{}, false
	}
	return *c, true
}

// storageAttach is POST /storage/attach. The body has been validated against
// StorageAttachRestRequest.
func (e *Engine) storageAttach(c *call) *result {
	// Guess: the seed lists the outcomes but not their precedence; the
	// engine checks, in order: id format (400), storage exists (404),
	// clusters exist (404), eligibility (400), storage ready (409), cluster
	// free (409).
	var req gen.StorageAttachRestRequest
	if err := json.Unmarshal(c.body, &req); err != nil { // possible with WithSpec's document
		return c.fail(http.StatusBadRequest, "Invalid request: %v", err)
	}
	// The seed: "Storage ID to attach (must start with 's-')"; a bad id is
	// a 400 "Invalid request", since the schema itself has no pattern.
	if !strings.HasPrefix(req.StorageID, "s-") {
		return c.fail(http.StatusBadRequest, "Invalid request: storage id %q must start with 's-'", req.StorageID)
	}
	s, ok := e.storages[req.StorageID]
	if !ok {
		return c.fail(http.StatusNotFound, "Storage %s not found", req.StorageID)
	}
	var targets []*Cluster
	for i, id := range req.ClusterIDs {
		// Guess: a cluster listed twice is an invalid request (the vendored
		// spec allows one id; a bigger spec may allow more).
		if slices.Contains(req.ClusterIDs[:i], id) {
			return c.fail(http.StatusBadRequest, "Invalid request: cluster %s listed twice", id)
		}
		cl, ok := e.clusters[id]
		if !ok {
			return c.fail(http.StatusNotFound, "Cluster %s not found", id)
		}
		targets = append(targets, cl)
	}
	for _, cl := range targets {
		if cl.Ineligible {
			return c.fail(http.StatusBadRequest, "Cluster %s is not eligible for storage attachment", cl.ID)
		}
	}
	if s.NotReady {
		return c.fail(http.StatusConflict, "Storage %s is not ready", s.ID)
	}
	// Guess: a volume with a request in flight (an attach or a destroy not
	// yet terminal) is refused with 409 too, the seed's "storage not ready"
	// read broadly; the message says busy, since the volume is provisioned.
	if id := e.busy(s, nil); id != "" {
		return c.fail(http.StatusConflict, "Storage %s is busy: request %s is in progress", s.ID, id)
	}
	for _, cl := range targets {
		// Guess: the seed's "Cluster already has storage attached" is read
		// literally: a cluster holds at most one volume, this one or another,
		// and an attach in flight to it counts. A volume may be attached to
		// several clusters (destroy's 409 says "attached to clusters").
		if cl.Storage != "" || e.busy(nil, cl) != "" {
			return c.fail(http.StatusConflict, "Cluster %s already has storage attached", cl.ID)
		}
	}
	var ids []string
	for _, cl := range targets {
		// Guess: one request per cluster, as the CLI expects.
		r := e.newRequest(c.now, gen.RequestTypeSTORAGEATTACH, s, cl)
		r.pendingMsg = fmt.Sprintf("Attaching storage %s to cluster %s", s.ID, cl.ID)
		r.doneMsg = fmt.Sprintf("Storage %s attached to cluster %s", s.ID, cl.ID)
		r.effect = func() { link(s, cl) }
		ids = append(ids, r.id)
	}
	return jsonResult(http.StatusAccepted, gen.StorageAttachRestResponse{
		StorageID:  s.ID,
		ClusterIDs: req.ClusterIDs,
		RequestIDs: ids,
		// Guess: wording; the seed only says "Storage attachment initiated".
		Message: fmt.Sprintf("Storage attachment initiated; attaching restarts all nodes of %s", strings.Join(req.ClusterIDs, ", ")),
	})
}

// storageDestroy is DELETE /storage/{storage_id}.
func (e *Engine) storageDestroy(c *call) *result {
	// Guess: "Invalid storage ID format" (400) is the "must start with 's-'"
	// rule of attach's storage_id; the checks run in the order below.
	id := c.params["storage_id"]
	if !strings.HasPrefix(id, "s-") {
		return c.fail(http.StatusBadRequest, "Invalid storage ID format: %q must start with 's-'", id)
	}
	s, ok := e.storages[id]
	if !ok {
		return c.fail(http.StatusNotFound, "Storage %s not found", id)
	}
	if s.DeletionProtection {
		return c.fail(http.StatusConflict, "Storage %s has deletion protection enabled", id)
	}
	// Guess: the wording of the spec's "storage attached to clusters" 409.
	if len(s.AttachedTo) > 0 {
		return c.fail(http.StatusConflict, "Storage %s is attached to clusters %s", id, strings.Join(s.AttachedTo, ", "))
	}
	// Guess: the seed's destroy outcomes have no "not ready", so a volume
	// still provisioning (NotReady) may be destroyed. A request in flight
	// (an attach, or an earlier destroy) blocks a destroy with 409, like
	// "still attached".
	if busy := e.busy(s, nil); busy != "" {
		return c.fail(http.StatusConflict, "Storage %s is busy: request %s is in progress", id, busy)
	}
	r := e.newRequest(c.now, gen.RequestTypeSTORAGEDESTROY, s, nil)
	r.pendingMsg = fmt.Sprintf("Destroying storage %s", id)
	r.doneMsg = fmt.Sprintf("Storage %s destroyed", id)
	// Guess: a destroyed volume is gone (404 from then on), not kept in a
	// "destroyed" state; the seeds show no state field to say otherwise.
	// No volume is replaced while a request is in flight on it.
	r.effect = func() { delete(e.storages, id) }
	return jsonResult(http.StatusAccepted, gen.StorageDestroyRestResponse{
		StorageID: id,
		RequestID: &r.id,
		Message:   "Storage destruction initiated",
	})
}
