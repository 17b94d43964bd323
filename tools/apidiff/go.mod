module github.com/tensorpool/tensorpool-go/tools/apidiff

go 1.26.0

toolchain go1.26.8

require golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
