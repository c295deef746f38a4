package translator

import networkingv1 "k8s.io/api/networking/v1"

// ingressBuild is the Ingress family's view of one build: the build context and the memos the
// family keeps, which assemble hands it (the core context holds no family's memos).
type ingressBuild struct {
	*translation
	memos *ingressMemos
	tls   *certBuilder // the certificates this build claims (certtls.go)
	match routeMatch   // the routes' match descriptions (routematch.go)
	local *identTable  // where a worker of a parallel build interns (piecesInParallel); nil: memos.idents
}

// idents is the table intern uses: the worker's own in a parallel build, else the build's.
func (t *ingressBuild) idents() *identTable {
	if t.local != nil {
		return t.local
	}
	return &t.memos.idents
}

// ingressMemos are what the Ingress family keeps between builds.
type ingressMemos struct {
	ingresses *memo[*networkingv1.Ingress, *ingressPiece] // Service and upstream pieces: on ksIdent
	served    *memo[bool, *servedIngresses]
	idents    identTable
	stages    stages     // what assemble's per-object stages kept
	share     shareTable // mayShare's table (ingressshare.go)
}
