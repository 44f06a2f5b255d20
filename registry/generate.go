package registry

//go:generate go run goa.design/goa/v3/cmd/goa gen github.com/quiver-go/quiver/registry/design -o .
