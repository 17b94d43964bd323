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

type storage struct {
	Storage
	// inFlight are the ids of the requests in flight on this volume, oldest
	// first: one destroy, or one attach per cluster of a multi-cluster attach.
	inFlight []string
}

// busy returns the id of the oldest request in flight on the volume, or "".
func (s *storage) busy() string {
	if len(s.inFlight) == 0 {
		return ""
	}
	return s.inFlight[0]
}

func (s *storage) done(requestID string) {
	s.inFlight = slices.DeleteFunc(s.inFlight, func(id string) bool { return id == requestID })
}

type cluster struct {
	Cluster
	busy string // the id of an attach request in flight to this cluster, or ""
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
		if cl.busy != "" {
			panic(fmt.Sprintf("tensorpooltest: storage %s attached to cluster %s while request %s is in flight to it", s.ID, c, cl.busy))
		}
	}
	if old, ok := e.storages[s.ID]; ok {
		if id := old.busy(); id != "" {
			panic(fmt.Sprintf("tensorpooltest: storage %s replaced while request %s is in flight on it", s.ID, id))
		}
		for _, c := range old.AttachedTo {
			if cl, ok := e.clusters[c]; ok && cl.Storage == s.ID {
				cl.Storage = ""
			}
		}
	}
	for _, c := range s.AttachedTo {
		e.clusters[c].Storage = s.ID
	}
	s.AttachedTo = slices.Compact(slices.Sorted(slices.Values(s.AttachedTo)))
	e.storages[s.ID] = &storage{Storage: s}
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
	var s *storage
	if c.Storage != "" {
		var ok bool
		if s, ok = e.storages[c.Storage]; !ok {
			panic(fmt.Sprintf("tensorpooltest: cluster %s attached to unknown storage %q", c.ID, c.Storage))
		}
		if id := s.busy(); id != "" {
			panic(fmt.Sprintf("tensorpooltest: cluster %s attached to storage %s while request %s is in flight on it", c.ID, c.Storage, id))
		}
	}
	if old, ok := e.clusters[c.ID]; ok {
		if old.busy != "" {
			panic(fmt.Sprintf("tensorpooltest: cluster %s replaced while request %s is in flight to it", c.ID, old.busy))
		}
		if prev, ok := e.storages[old.Storage]; ok && old.Storage != c.Storage {
			prev.AttachedTo = slices.DeleteFunc(prev.AttachedTo, func(id string) bool { return id == c.ID })
		}
	}
	if s != nil && !slices.Contains(s.AttachedTo, c.ID) {
		s.AttachedTo = append(s.AttachedTo, c.ID)
		slices.Sort(s.AttachedTo)
	}
	e.clusters[c.ID] = &cluster{Cluster: c}
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
	out := s.Storage
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
	return c.Cluster, true
}

// storageAttach is POST /storage/attach. The body has been validated against
// StorageAttachRestRequest (required fields, exactly one cluster id).
func (e *Engine) storageAttach(c *call) *result {
	// Guess: the seed lists the outcomes but not their precedence; the
	// engine checks, in order: id format (400), storage exists (404),
	// clusters exist (404), eligibility (400), storage ready (409), cluster
	// free (409).
	var req gen.StorageAttachRestRequest
	if err := json.Unmarshal(c.body, &req); err != nil {
		// Unreachable after validation, but a handler never trusts its body.
		return errorResult(http.StatusBadRequest, "Invalid request: %v", err)
	}
	// The seed: "Storage ID to attach (must start with 's-')"; a bad id is
	// a 400 "Invalid request", since the schema itself has no pattern.
	if !strings.HasPrefix(req.StorageID, "s-") {
		return errorResult(http.StatusBadRequest, "Invalid request: storage id %q must start with 's-'", req.StorageID)
	}
	s, ok := e.storages[req.StorageID]
	if !ok {
		return errorResult(http.StatusNotFound, "Storage %s not found", req.StorageID)
	}
	var targets []*cluster
	for i, id := range req.ClusterIDs {
		// Guess: a cluster listed twice is an invalid request (the vendored
		// spec allows one id; a bigger spec may allow more).
		if slices.Contains(req.ClusterIDs[:i], id) {
			return errorResult(http.StatusBadRequest, "Invalid request: cluster %s listed twice", id)
		}
		cl, ok := e.clusters[id]
		if !ok {
			return errorResult(http.StatusNotFound, "Cluster %s not found", id)
		}
		targets = append(targets, cl)
	}
	for _, cl := range targets {
		if cl.Ineligible {
			return errorResult(http.StatusBadRequest, "Cluster %s is not eligible for storage attachment", cl.ID)
		}
	}
	if s.NotReady {
		return errorResult(http.StatusConflict, "Storage %s is not ready", s.ID)
	}
	// Guess: a volume with a request in flight (an attach or a destroy not
	// yet terminal) is refused with 409 too, the seed's "storage not ready"
	// read broadly; the message says busy, since the volume is provisioned.
	if id := s.busy(); id != "" {
		return errorResult(http.StatusConflict, "Storage %s is busy: request %s is in progress", s.ID, id)
	}
	for _, cl := range targets {
		// Guess: the seed's "Cluster already has storage attached" is read
		// literally: a cluster holds at most one volume, this one or another,
		// and an attach in flight to it counts. A volume may be attached to
		// several clusters (destroy's 409 says "attached to clusters").
		if cl.Storage != "" || cl.busy != "" {
			return errorResult(http.StatusConflict, "Cluster %s already has storage attached", cl.ID)
		}
	}
	var ids []string
	for _, cl := range targets {
		r := e.newRequest(c.now, gen.RequestTypeSTORAGEATTACH, s.ID)
		// Guess: object_id is the volume's id (the spec says
		// "cluster/storage"); one request per cluster, as the CLI expects.
		r.pendingMsg = fmt.Sprintf("Attaching storage %s to cluster %s", s.ID, cl.ID)
		r.doneMsg = fmt.Sprintf("Storage %s attached to cluster %s", s.ID, cl.ID)
		s.inFlight = append(s.inFlight, r.id)
		cl.busy = r.id
		r.release = func() { s.done(r.id); cl.busy = "" }
		r.effect = func() {
			cl.Storage = s.ID
			s.AttachedTo = append(s.AttachedTo, cl.ID)
			slices.Sort(s.AttachedTo)
		}
		ids = append(ids, r.id)
	}
	clusterIDs := slices.Clone(req.ClusterIDs)
	return jsonResult(http.StatusAccepted, gen.StorageAttachRestResponse{
		StorageID:  s.ID,
		ClusterIDs: clusterIDs,
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
		return errorResult(http.StatusBadRequest, "Invalid storage ID format: %q must start with 's-'", id)
	}
	s, ok := e.storages[id]
	if !ok {
		return errorResult(http.StatusNotFound, "Storage %s not found", id)
	}
	if s.DeletionProtection {
		return errorResult(http.StatusConflict, "Storage %s has deletion protection enabled", id)
	}
	// Guess: the wording of the spec's "storage attached to clusters" 409.
	if len(s.AttachedTo) > 0 {
		return errorResult(http.StatusConflict, "Storage %s is attached to clusters %s", id, strings.Join(s.AttachedTo, ", "))
	}
	// Guess: the seed's destroy outcomes have no "not ready", so a volume
	// still provisioning (NotReady) may be destroyed. A request in flight
	// (an attach, or an earlier destroy) blocks a destroy with 409, like
	// "still attached".
	if busy := s.busy(); busy != "" {
		return errorResult(http.StatusConflict, "Storage %s is busy: request %s is in progress", id, busy)
	}
	r := e.newRequest(c.now, gen.RequestTypeSTORAGEDESTROY, id)
	r.pendingMsg = fmt.Sprintf("Destroying storage %s", id)
	r.doneMsg = fmt.Sprintf("Storage %s destroyed", id)
	s.inFlight = append(s.inFlight, r.id)
	r.release = func() { s.done(r.id) }
	// Guess: a destroyed volume is gone (404 from then on), not kept in a
	// "destroyed" state; the seeds show no state field to say otherwise.
	r.effect = func() {
		if e.storages[id] == s {
			delete(e.storages, id)
		}
	}
	rid := r.id
	return jsonResult(http.StatusAccepted, gen.StorageDestroyRestResponse{
		StorageID: id,
		RequestID: &rid,
		Message:   "Storage destruction initiated",
	})
}
