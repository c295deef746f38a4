package translator

// layerDebts are the layer violations TestLayers still tolerates (see layers in
// layers_test.go): "name f" for a family file without its family's prefix, "a -> b" for a
// reference from a to a file of a higher layer or another family. It only shrinks; it is empty
// since assemble hands each family its memos (ingressBuild, gwBuild, …) and the certificate
// builders their state (certBuilder), so the build context names no family or builder.
var layerDebts = []string{}
