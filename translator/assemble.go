package translator

import (
	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
)

// stubUpstream is the entity KIC sends when a configuration would otherwise be empty: DB-less
// Kong does not report itself ready after an empty configuration.
const stubUpstream = "kong"

// build is one build as the engine runs it: the build context, with every family's memos, which
// assemble hands each family (the families and the core see only their own), and the plugin
// family's view, which the plugin stage works on.
type build struct {
	pluginBuild
	memos *memos
	v     views
}

// views are the families' and the certificate builders' views of the build, which assemble
// hands them; they are allocated with the build.
type views struct {
	ca       caBuilder
	tls      certBuilder
	ingress  ingressBuild
	gw       gwBuild
	stream   streamBuild
	consumer consumerBuild
}

// handViews gives each family and certificate builder the build context with its own memos
// (and the families that claim certificates the certificate builder).
func (t *build) handViews() {
	c, m, v := t.translation, t.memos, &t.v
	v.ca = caBuilder{translation: c, memos: &m.caMemos}
	v.tls = certBuilder{translation: c, memos: &m.certMemos, ca: &v.ca,
		certs: map[string]*certEntry{}, sniOwner: map[string]*certEntry{}}
	v.ingress = ingressBuild{translation: c, memos: &m.ingressMemos, tls: &v.tls}
	v.gw = gwBuild{translation: c, memos: &m.gwMemos, tls: &v.tls}
	v.stream = streamBuild{translation: c, memos: &m.streamMemos, tls: &v.tls}
	v.consumer = consumerBuild{translation: c, memos: &m.consumerMemos}
}

// assemble makes every decision across objects from the pieces: which Ingresses are served and
// in what order, TLS host claims, the default backend, the Kong services that routes share,
// certificates, consumers, ambiguous paths, plugins, ordering. It runs on every build, so it
// stays linear in the objects and allocates little when pieces are reused.
func (t *build) assemble() Result {
	doc := document.New()
	t.handViews()
	tb, ib, sb, gb, cb := &t.v.tls, &t.v.ingress, &t.v.stream, &t.v.gw, &t.v.consumer
	served := ib.selectIngresses()
	ings := served.list
	tb.collectTLS(ings, served.tls)
	streams := sb.selectStreams()
	sb.streamTLS(streams)
	gb.gatewayCerts()
	ps, changed, full := ib.servedPieces(served)
	t.changed = changed
	dirty, regrouped := ib.group(ps, changed, full)
	ib.translateDefaultBackend(ings, ps, served.defs, regrouped)
	doc.CACertificates = tb.ca.caCertificates()
	doc.Services, doc.Upstreams = ib.emit(dirty, regrouped)
	var in pluginInputs // what the family stages hand the plugin stage
	doc.Services, doc.Upstreams, in.routePieces = gb.gatewayPart(doc.Services, doc.Upstreams)
	doc.Services, doc.Upstreams = sb.streamPart(streams, doc.Services, doc.Upstreams)
	gb.countAttached()
	in.prevPS, in.prevServed = ib.settle(served, ps, regrouped)
	t.complete = full && regrouped
	doc.Certificates = tb.buildCertificates()
	in.groups = cb.consumerGroups()
	doc.ConsumerGroups = in.groups.list
	in.consumers = cb.translateConsumers(in.groups)
	doc.Consumers, doc.ConsumerGroupConsumers = in.consumers.consumers, in.consumers.members
	sortDocument(doc)
	doc.Services = ib.dropAmbiguousPaths(doc.Services, ings, ps)
	in.served, in.ps = served, ps
	doc.Plugins = t.plugins(doc, &in)
	t.dropDuplicateIDs(doc)
	t.classParamsProblems()
	if document.IsEmpty(doc) {
		doc.Upstreams = []*document.Upstream{{Upstream: kong.Upstream{Name: kong.String(stubUpstream)}}}
	}
	return Result{Document: doc, Problems: finishProblems(t.problems), Parents: t.parents, Gateways: t.gateways}
}
