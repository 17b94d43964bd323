// Command consumer is a stand-in for a program that imports tensorpool-go;
// scripts/check-consumer.sh inspects its module graph.
package main

import (
	"fmt"

	"github.com/tensorpool/tensorpool-go/gen"
)

func main() {
	c, err := gen.NewClientWithResponses("https://engine.tensorpool.dev")
	fmt.Println(c != nil, err)
}
