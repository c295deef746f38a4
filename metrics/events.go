package metrics

import (
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/kongsync/kongsync/internal/safetext"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// Stable Event reasons: alerting and users' kubectl filters depend on them, never rename.
const (
	// ReasonTranslationFailed: the translator skipped the object or one of its fields.
	ReasonTranslationFailed = "KongConfigurationTranslationFailed"
	// ReasonApplyFailed: Kong refused an entity translated from the object; the object is left
	// out of the configuration until it changes.
	ReasonApplyFailed = "KongConfigurationApplyFailed"
	// ReasonPushFailed: a Kong replica did not take the configuration for a reason tied to no
	// object (config too large, server errors, unreachable); reported on kongsync's own Pod.
	ReasonPushFailed = "KongConfigurationPushFailed"
	// ReasonRouterFlavorMismatch: a Kong replica reports a router_flavor that needs other
	// routes than the flavor most replicas report, which kongsync translates for; it is posted
	// nothing until its flavor matches. Reported on kongsync's own Pod.
	ReasonRouterFlavorMismatch = "KongRouterFlavorMismatch"
)

// Getter looks objects up by ref; *store.Store is one. Events need the object's UID.
type Getter interface {
	Get(ref store.Ref) (store.Object, bool)
}

// Reporter implements sync.Reporter with Warning Events on the objects concerned.
type Reporter struct {
	recorder record.EventRecorder
	objects  Getter
	log      logr.Logger

	// pod is kongsync's own Pod, where failures that name no object are reported; nil when the
	// Pod is unknown (not run in a cluster), and then they are only logged.
	pod *corev1.ObjectReference

	mu       sync.Mutex
	problems map[objectProblem]bool // the last translation's problems, already reported
}

// objectProblem is a problem on one incarnation of its object: an object deleted and created
// again under the same name (a new UID) with the same problem gets its own Event, which
// `kubectl describe` finds by the new UID. (Found by the soak: a re-create coalesced into one
// build left the new object without an Event.)
type objectProblem struct {
	translator.Problem
	uid types.UID
}

// NewReporter returns a Reporter emitting through recorder.
func NewReporter(recorder record.EventRecorder, objects Getter, log logr.Logger) *Reporter {
	return &Reporter{recorder: recorder, objects: objects, log: log, problems: map[objectProblem]bool{}}
}

// TranslationProblems emits one Event per problem that the previous translation did not have
// on the same object (same UID): the translator runs on every change and must not flood the API
// with repeats.
func (r *Reporter) TranslationProblems(problems []translator.Problem) {
	keys := make([]objectProblem, len(problems))
	for i, p := range problems {
		keys[i].Problem = p
		if obj, ok := r.objects.Get(p.Object); ok {
			keys[i].uid = obj.GetUID()
		}
	}
	r.mu.Lock()
	next := make(map[objectProblem]bool, len(problems))
	var fresh []translator.Problem
	for _, k := range keys {
		next[k] = true
		if !r.problems[k] {
			fresh = append(fresh, k.Problem)
		}
	}
	r.problems = next
	r.mu.Unlock()
	for _, p := range fresh {
		r.emit(p.Object, ReasonTranslationFailed, p.Message())
	}
}

// KongRejected emits one Event per rejected entity on the object it came from.
func (r *Reporter) KongRejected(rejections []kongsync.Rejection) {
	for _, rj := range rejections {
		r.emit(rj.Object, ReasonApplyFailed, fmt.Sprintf("Kong %s rejected %s", rj.Replica, rj.Message()))
	}
}

// SetPod names the Pod kongsync runs in (from the downward API), so that replica-wide failures,
// which name no Kubernetes object, still reach `kubectl get events` and alerting on Events.
func (r *Reporter) SetPod(namespace, name string) {
	if namespace == "" || name == "" {
		return
	}
	r.pod = &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: namespace, Name: name}
}

// ReplicaFailed emits a Warning Event on kongsync's Pod, when it is known. The sync loop calls it
// once per failure streak, so Events do not flood during a long outage; the loop has already
// logged the failure at error level, so it is logged here only at debug level.
func (r *Reporter) ReplicaFailed(replica string, result kongsync.Result, err error) {
	r.log.V(1).Info("Kong replica did not take the configuration", "replica", replica, "result", string(result),
		"error", errString(err))
	if r.pod == nil {
		return
	}
	msg := fmt.Sprintf("Kong %s did not take the configuration (%s)", replica, result)
	if replica == "" {
		msg = fmt.Sprintf("configuration not built (%s)", result)
	}
	if err != nil {
		msg += ": " + err.Error()
	}
	r.recorder.Event(r.pod, corev1.EventTypeWarning, ReasonPushFailed, safetext.Escape(msg))
}

// RouterFlavorMismatch implements sync.FlavorReporter: a Warning Event on kongsync's Pod, when
// it is known (the loop has logged the mismatch at error level already).
func (r *Reporter) RouterFlavorMismatch(replica string, flavor, chosen translator.RouterFlavor) {
	if r.pod == nil {
		return
	}
	msg := fmt.Sprintf("Kong %s reports router_flavor %s, but most Kong replicas report %s, which the configuration "+
		"is translated for: nothing is posted to it until its router_flavor matches", replica, flavor, chosen)
	r.recorder.Event(r.pod, corev1.EventTypeWarning, ReasonRouterFlavorMismatch, safetext.Escape(msg))
}

// emit records a Warning Event on the object ref names. The message is escaped (safetext) here,
// where every object's Event passes: it holds names, values and Kong's answers, and `kubectl
// describe` prints it to a terminal as it is.
func (r *Reporter) emit(ref store.Ref, reason, msg string) {
	msg = safetext.Escape(msg)
	obj, ok := r.objects.Get(ref)
	if !ok {
		r.log.Info("no object for event", "object", ref.String(), "reason", reason, "message", msg)
		return
	}
	gvk := ref.Kind.GVK()
	or := &corev1.ObjectReference{
		APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
		Namespace: obj.GetNamespace(), Name: obj.GetName(),
		UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion(),
	}
	r.log.Info("warning event", "object", ref.String(), "reason", reason, "message", msg)
	r.recorder.Event(or, corev1.EventTypeWarning, reason, msg)
}

var (
	_ kongsync.Reporter       = (*Reporter)(nil)
	_ kongsync.FlavorReporter = (*Reporter)(nil)
)

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// NoEvents is a record.EventRecorder that drops every Event (KIC's
// --emit-kubernetes-events=false); what the Events would say is still logged.
type NoEvents struct{}

// Event implements record.EventRecorder.
func (NoEvents) Event(runtime.Object, string, string, string) {}

// Eventf implements record.EventRecorder.
func (NoEvents) Eventf(runtime.Object, string, string, string, ...any) {}

// AnnotatedEventf implements record.EventRecorder.
func (NoEvents) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {}

var _ record.EventRecorder = NoEvents{}
