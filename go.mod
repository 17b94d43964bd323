module github.com/tensorpool/tensorpool-go

go 1.25.0

require (
	github.com/dunglas/httpsfv v1.1.2
	github.com/getkin/kin-openapi v0.152.0
	github.com/go-openapi/jsonpointer v0.22.5
	github.com/oapi-codegen/runtime v1.8.0
	github.com/oasdiff/yaml v0.1.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/time v0.15.0
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/oasdiff/yaml3 v0.0.14 // indirect
	golang.org/x/text v0.32.0 // indirect
)
