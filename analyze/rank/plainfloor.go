package rank

import (
	"fmt"
	"math"
)

// liftToPlainRank applies D172 (method.md §7, "Not below the plain rank
// for weaker evidence") to fns, sorted best first: a function whose own
// variables went wrong (a variable verdict with r below def), that explains
// some of the slowdown (a calibrated cost above 0) and that the plain
// profile ranks p-th is not left below rank p by rows whose evidence
// is weaker than its own (a discount strictly higher than its r). It moves
// up past the row right above it while that row's discount is higher and it
// still sits below rank p, and takes a calibrated cost just above the
// highest row it passed, so that the table stays ordered by cost. Rows of
// equal or stronger evidence are never passed: they keep the places their
// costs or §7's placements gave them. Functions are taken in table order,
// so one lifted earlier is passed later only by a function of stronger
// evidence. It returns how many functions moved.
func liftToPlainRank(fns []Function, def float64) int {
	moved := 0
	for i := 1; i < len(fns); i++ {
		f := fns[i]
		if f.PlainRank <= 0 || f.Source != SourceVariable || !(f.Discount < def) || !(f.Calibrated > 0) {
			continue
		}
		j := i
		for j > 0 && j+1 > f.PlainRank && fns[j-1].Discount > f.Discount {
			fns[j] = fns[j-1]
			j--
		}
		if j == i {
			continue
		}
		moved++
		above := fns[j+1] // the highest row passed, now right below f
		f.Calibrated = math.Nextafter(above.Calibrated, math.Inf(1))
		note := fmt.Sprintf("at its plain-profile rank %d or nearer, above %d row(s) of weaker evidence (r above its %.2f) that ranked above it (D172)", f.PlainRank, i-j, f.Discount)
		if f.Placed != "" {
			note = f.Placed + "; then " + note
		}
		f.Placed = note
		fns[j] = f
	}
	return moved
}
