package admission

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-logr/logr"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/safetext"
)

// maxReviewBytes bounds a request body: the API server's objects are at most ~1.5 MiB (etcd's
// limit), an UPDATE's review carries two of them.
const maxReviewBytes = 8 << 20

// Reviewer judges requests; *Validator is one.
type Reviewer interface {
	Review(context.Context, *admissionv1.AdmissionRequest) (Verdict, error)
}

// Handler serves AdmissionReview v1 (and v1beta1) requests on every path (KIC's webhooks are registered at
// "/"), as KIC answers them: the review comes back with its response, uid copied, allowed or
// not with a message and HTTP 400 status code in the result, warnings beside. A body that is
// no review is a 400, a request that cannot be judged a 500. observe, if set, sees each
// review's duration and verdict (tests, logs).
func Handler(r Reviewer, log logr.Logger, observe func(time.Duration, Verdict)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		var review admissionv1.AdmissionReview
		dec := json.NewDecoder(http.MaxBytesReader(w, req.Body, maxReviewBytes))
		if err := dec.Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "expected an AdmissionReview with a request", http.StatusBadRequest)
			return
		}
		verdict, err := r.Review(req.Context(), review.Request)
		if err != nil {
			log.Error(err, "admission review failed", "kind", review.Request.Kind.Kind,
				"namespace", review.Request.Namespace, "name", review.Request.Name)
			http.Error(w, safetext.Escape(err.Error()), http.StatusInternalServerError)
			return
		}
		if !verdict.Allowed {
			log.Info("object refused", "kind", review.Request.Kind.Kind, "namespace", review.Request.Namespace,
				"name", review.Request.Name, "message", verdict.Message)
		}
		out := admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: answerVersion(review.APIVersion), Kind: "AdmissionReview"},
			Response: response(review.Request, verdict),
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(&out); err != nil {
			log.Error(err, "writing the admission response")
		}
		if observe != nil {
			observe(time.Since(start), verdict)
		}
	})
}

// answerVersion is the AdmissionReview version to answer in: the request's, since the API
// server refuses an answer in another one. Kong's chart registers the webhook with
// admissionReviewVersions [v1beta1], whose review has v1's shape.
func answerVersion(requested string) string {
	if requested == "admission.k8s.io/v1beta1" {
		return requested
	}
	return "admission.k8s.io/v1"
}

// response is what the API server shows the user (kubectl prints it): the object's own text in
// it is escaped, as on every other way out (internal/safetext).
func response(req *admissionv1.AdmissionRequest, v Verdict) *admissionv1.AdmissionResponse {
	res := &metav1.Status{Message: safetext.EscapeLines(v.Message)}
	warnings := make([]string, len(v.Warnings))
	for i, w := range v.Warnings {
		warnings[i] = safetext.Escape(w)
	}
	if !v.Allowed {
		res.Code = http.StatusBadRequest
	}
	return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: v.Allowed, Result: res, Warnings: warnings}
}
