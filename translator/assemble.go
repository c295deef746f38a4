package translator

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// stubUpstream is the entity KIC sends when a configuration would otherwise be empty: DB-less
// Kong does not report itself ready after an empty configuration.
const stubUpstream = "kong"

// memos are the Engine's pieces and the entities assemble reuses, by sort. A build that keeps
// nothing has only the identity table (which groups routes into Kong services): a nil memo
// computes every piece. Each family and builder declares its own part beside its code; the
// engine only composes them.
type memos struct {
	kindMemos        // what changed between builds (memokinds.go)
	ingressMemos     // ingressbuild.go
	gwMemos          // gwstage.go
	streamMemos      // streamassemble.go
	consumerMemos    // consumerbuild.go
	pluginPieceMemos // plugin.go
	pluginMemos      // pluginstagebuild.go
	certMemos        // certtls.go
	caMemos          // certca.go
	vaultMemos       // vault.go
	licenseMemos     // license.go
	customMemos      // customentity.go
}

func newMemos() *memos {
	m := &memos{
		ingressMemos: ingressMemos{
			ingresses: &memo[*networkingv1.Ingress, *ingressPiece]{m: map[*networkingv1.Ingress]*entry[*ingressPiece]{}},
			served:    newMemo[bool, *servedIngresses](),
			idents:    identTable{m: map[string]*ksIdent{}},
		},
		certMemos: certMemos{certs: newMemo[*corev1.Secret, *certPiece]()},
		caMemos: caMemos{caCerts: newMemo[*corev1.Secret, *caCertPiece](), caConfigMaps: newMemo[*corev1.ConfigMap, *caCertPiece](),
			allCACerts: newMemo[struct{}, *caCerts]()},
		pluginPieceMemos: pluginPieceMemos{plugins: newMemo[metav1.Object, *pluginPiece]()},
		pluginMemos: pluginMemos{pluginServices: newMemo[struct{}, map[[2]string]*corev1.Service](),
			pluginFacades: newMemo[struct{}, map[[2]string]facadePlugins]()},
		gwMemos:       gwMemos{routes: newMemo[store.Object, *routePiece]()},
		streamMemos:   streamMemos{streams: newMemo[store.Object, *streamPiece]()},
		consumerMemos: consumerMemos{consumerGroups: newMemo[bool, *consumerGroupSet]()},
		vaultMemos:    vaultMemos{vaults: newMemo[bool, *vaultSet]()},
		licenseMemos:  licenseMemos{licenses: newMemo[bool, []*kong.License]()},
		customMemos:   customMemos{customs: newMemo[*kva.KongCustomEntity, *customPiece]()},
	}
	m.ingresses.alive = m.idents.alive // an Ingress piece is reused only while its identities are interned
	return m
}

// sweep drops what build gen did not use.
func (m *memos) sweep(gen uint64) {
	m.ingresses.sweep(gen)
	m.certs.sweep(gen)
	m.caCerts.sweep(gen)
	m.caConfigMaps.sweep(gen)
	m.plugins.sweep(gen)
	m.pluginServices.sweep(gen)
	m.pluginFacades.sweep(gen)
	m.served.sweep(gen)
	// routes are swept when gatewayPart visits every route (gwstage.go)
	m.streams.sweep(gen)
	m.consumerGroups.sweep(gen)
	m.allCACerts.sweep(gen)
	m.vaults.sweep(gen)
	m.licenses.sweep(gen)
	m.customs.sweep(gen)
	epoch := m.idents.epoch
	m.idents.sweep(gen)
	if m.idents.epoch != epoch {
		m.stages.rebuildReaders(&m.idents) // the index may name dropped identities
	}
}

// build is one build as the engine runs it: the build context, with every family's memos, which
// assemble hands each family (the families and the core see only their own).
type build struct {
	*translation
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
	plugins  pluginStageBuild
	vault    vaultBuild
	license  licenseBuild
	custom   customBuild
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
	v.plugins = pluginStageBuild{pluginBuild: pluginBuild{translation: c, memos: &m.pluginPieceMemos}, memos: &m.pluginMemos}
	v.vault = vaultBuild{translation: c, memos: &m.vaultMemos}
	v.license = licenseBuild{translation: c, memos: &m.licenseMemos}
	v.custom = customBuild{translation: c, memos: &m.customMemos}
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
	doc.Vaults = t.v.vault.vaults().list
	doc.Licenses = t.v.license.licenses()
	sortDocument(doc)
	doc.Services = ib.dropAmbiguousPaths(doc.Services, ings, ps)
	in.served, in.ps = served, ps
	var rels map[pluginRef]*pluginRels
	doc.Plugins, rels = t.v.plugins.plugins(doc, &in)
	doc.CustomEntities = t.v.custom.customEntities(doc, rels)
	t.dropDuplicateIDs(doc)
	t.classParamsProblems()
	if document.IsEmpty(doc) {
		doc.Upstreams = []*document.Upstream{{Upstream: kong.Upstream{Name: kong.String(stubUpstream)}}}
	}
	return Result{Document: doc, Problems: finishProblems(t.problems), Parents: t.parents, Gateways: t.gateways,
		NextExpiry: tb.ca.nextExpiry}
}
