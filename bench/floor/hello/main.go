// Command hello prints one line: the start-up of any Go process, the floor
// under omgdb's whole-process figures.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
