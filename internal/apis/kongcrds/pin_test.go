package kongcrds

// The module that publishes Kong's CRDs is required only for its YAML files (config/crd), which
// the schema test and the integration tests install. Importing its one dependency-free package
// here keeps it in go.mod and go.sum, so `go list -m` finds it in the module cache, without any
// of its packages entering a binary.
import _ "github.com/kong/kubernetes-configuration/pkg/metadata"
