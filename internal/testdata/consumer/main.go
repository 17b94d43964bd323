// Command consumer is a stand-in for a program that imports tensorpool-go;
// scripts/check-consumer.sh inspects its module graph.
package main

import (
	"fmt"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
)

func main() {
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("example"))
	var _ *gen.ClientWithResponses = c
	fmt.Println(c != nil, err)
}
