package cfg
import ("testing";"fmt";"os")
func TestDbg(t *testing.T){
	bin := os.Getenv("DBGBIN"); if bin=="" {t.Skip()}
	g := buildFunc(t, bin, os.Getenv("DBGFN"))
	for i,b := range g.Blocks { fmt.Printf("%d %x-%x %v succ=%v pred=%v idom=%d\n", i, b.Start,b.End,b.Term,b.Succs,b.Preds,g.Idom[i]) }
	for _, l := range g.Loops { fmt.Printf("loop %+v\n", l) }
}
