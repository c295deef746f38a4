package translator

// layerDebts are the layer violations TestLayers still tolerates (see layers in
// layers_test.go): "name f" for a family file without its family's prefix, "a -> b" for a
// reference from a to a file of a higher layer or another family. It only shrinks.
//
// What is left is the build context holding the engine's memos (whose type embeds every
// family's memos struct) and the certificate and class-parameter builders' per-build state:
// they go when assemble hands each family its memos, as it already hands on what they make.
var layerDebts = []string{
	"translator.go -> certca.go",
	"translator.go -> engine.go",
	"translator.go -> certtls.go",
}
