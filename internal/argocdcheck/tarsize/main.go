// Command tarsize prints what Argo CD's repo-server sends a Config
// Management Plugin for a repository folder, with its own tarball code
// (util/tgzstream), without and with tar exclusions: entries and bytes.
// scripts/bench-argocd.sh records it in docs/performance.md.
//
//	go run ./tarsize DIR '.git;README.md;argocd'
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/argoproj/argo-cd/v3/util/tgzstream"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: tarsize DIR 'glob;glob;...'")
		os.Exit(2)
	}
	var excluded []string
	if os.Args[2] != "" {
		excluded = strings.Split(os.Args[2], ";")
	}
	for _, ex := range [][]string{nil, excluded} {
		f, n, _, err := tgzstream.CompressFiles(os.Args[1], nil, ex)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		st, err := f.Stat()
		tgzstream.CloseAndDelete(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("exclusions=%q entries=%d bytes=%d\n", strings.Join(ex, ";"), n, st.Size())
	}
}
