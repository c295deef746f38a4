package translator

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// pluginMemos are what the plugin stage keeps between builds besides the plugin pieces.
type pluginMemos struct {
	// pluginServices are the Services with konghq.com/plugins; served the Ingresses in order.
	pluginServices *memo[struct{}, map[[2]string]*corev1.Service]
	// pluginFacades are the KongServiceFacades whose Kong services carry konghq.com/plugins.
	pluginFacades *memo[struct{}, map[[2]string]facadePlugins]
	// pluginEntities are the last build's plugin entities by what they were made from.
	pluginEntities map[pluginMemoKey]*pluginEntity
	pluginStage    pluginStage // the reuse of the last build's plugins (pluginstage.go)
}

// pluginStageBuild is the plugin stage's view of one build: the plugin family's view (the
// plugin pieces) and what the stage keeps between builds, which assemble hands it.
type pluginStageBuild struct {
	pluginBuild
	memos *pluginMemos
}

// pluginInputs are what the family stages hand the plugin stage, which assemble runs last: the
// served Ingresses and their pieces (this build's and the last build's), the served Gateway API
// route pieces, the served consumer groups and the consumers' part of the document.
type pluginInputs struct {
	served, prevServed *servedIngresses
	ps, prevPS         []*ingressPiece
	routePieces        []*routePiece
	groups             *consumerGroupSet
	consumers          consumerList
}

// pluginStage is what the last build's plugin stage kept: its output, and what that output was
// made of, so that a build that changed none of it reuses the plugins whole.
type pluginStage struct {
	// plugins and pluginProblems are the last plugin stage's output; pluginsGen its build.
	plugins        []*document.Plugin
	pluginProblems []Problem
	pluginsGen     uint64
	rels           map[pluginRef]*pluginRels // who asked for which plugin, for those plugins
	routePieces    []*routePiece             // the served Gateway API route pieces the plugin stage saw
	// consumerPlugins are the consumers with konghq.com/plugins the plugin stage saw (entries
	// are replaced, never changed, so the same entries mean the same consumers).
	consumerPlugins []*consumerEntry
	// pluginMask is what the plugin pieces of that build read (kinds): Secrets only when a
	// plugin takes its config from one.
	pluginMask uint32
}

// facadePlugins is a KongServiceFacade's konghq.com/plugins as its Kong service takes it: the
// facade's own annotation, or else its Service's (KIC merges the facade's annotations over the
// Service's).
type facadePlugins struct {
	ref   store.Ref
	value string
}
