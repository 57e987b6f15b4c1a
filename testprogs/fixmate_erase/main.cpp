/*
 * fixmate_erase - BirolLab/abyss#44: "abyss-fixmate: std::unordered_map::erase can
 * be slow" (https://github.com/BirolLab/abyss/issues/44, January 2014; ABySS, the
 * genome assembler, its tool that pairs the mates of a SAM file).
 *
 * The real bug: abyss-fixmate (ParseAligns/abyss-fixmate.cc) keeps every read whose
 * mate it has not seen yet in a hash map keyed by read name; handleAlignment()
 * inserts each alignment and, when the mate is already there, handles the pair
 * and erases it with map.erase(it.first). "With a large number of buckets and low
 * density, std::unordered_map::erase can be very slow": erase(iterator) returns the
 * iterator to the next element, and the map of GCC 4.x found it by walking the
 * buckets after the erased one; a map never shrinks, so after a peak each erase
 * walks about bucket_count / size empty buckets. The reporter, on "high depth data
 * (80x in a single file)": abyss-fixmate "runs for a week ... by the time it slows
 * down, the bucket load is 0"; with boost::unordered_map::quick_erase (an erase
 * that returns nothing) it "ends in hours". The fix is the erase: one that does not
 * compute the next iterator (quick_erase; GCC 4.7's hashtable, GCC bug 41975).
 *
 * Here (C++: a class with this-> fields, std::string keys, a hand-written
 * header-template hash map as GCC 4.x's, its erase inlined into the host method
 * FixMate::handleAlignment): an alignment pipeline reads coordinate-sorted SAM
 * records of one chromosome (generated in memory, as an aligner streams them:
 * qname, flag, positions, CIGAR) and pairs the mates. The slow run is the same
 * binary on a different file: normal: 3,000,000 pairs of a concordant library
 * (each mate a few hundred records after the other: about 200 reads wait at any
 * time); buggy: the same pairs, the file also holding a collapsed repeat near the
 * chromosome's start whose 300,000 reads have their mates 2 Mb further (the map
 * peaks at 300,000 reads, 524,287 buckets, then drains to about 200 reads, and every
 * later erase walks about 2,600 empty buckets).
 *
 * Root cause: hash_map<...>::erase(iterator) (HashMap.h), its ++result (ROOT CAUSE),
 * inlined into FixMate::handleAlignment (fixmate.cpp). Key variables: the map's
 * m_element_count and m_bucket_count, result.m_cur_bucket. Pattern: scalability
 * (the walk runs over more empty buckets, not more often).
 *
 * Files, as in ABySS: fixmate.cpp (ParseAligns/abyss-fixmate.cc), HashMap.h (the
 * hash map, the root cause), SAM.h (Common/SAM.h and the class); main.cpp (this
 * driver: the aligner's record stream).
 */
#include "SAM.h"

#include <cstdio>
#include <cstring>
#include <ctime>

static const int kPairs = 3000000;
static const int kWindow = 400;	// a mate comes 1..kWindow records later
static const int kRepeatReads = 300000;

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return uint32_t(rng % n);
}

// A coordinate-sorted record stream: first mates are emitted in order, each
// second mate kept in a small delay line until its turn.
struct PendingMate {
	SAMRecord rec;
	long due;
};

static void makeRecord(SAMRecord& r, long id, int pos, int mpos, bool second, const char* lib)
{
	char name[48];
	std::snprintf(name, sizeof name, "%s:%ld:%d", lib, id / 1000, (int)(id % 1000));
	r.qname = name;
	r.tid = 0;
	r.mtid = 0;
	r.pos = pos;
	r.mpos = mpos;
	r.flag = uint16_t(0x1 | 0x2 | (second ? 0x80 | 0x10 : 0x40 | 0x20));
	r.mapq = uint8_t(20 + rnd(40));
	std::strcpy(r.cigar, "101M");
}

static int usage(const char* argv0)
{
	std::fprintf(stderr, "usage: %s normal|buggy\n"
		     "  Pairs the mates of a coordinate-sorted SAM stream (BirolLab/abyss#44).\n"
		     "  normal: %d concordant pairs; buggy: the same and a repeat of %d reads\n"
		     "  whose mates are 2 Mb further.\n", argv0, kPairs, kRepeatReads);
	return 2;
}

int main(int argc, char** argv)
{
	if (argc != 2)
		return usage(argv[0]);
	bool buggy;
	if (std::strcmp(argv[1], "normal") == 0)
		buggy = false;
	else if (std::strcmp(argv[1], "buggy") == 0)
		buggy = true;
	else
		return usage(argv[0]);

	FixMate fixmate(0);
	std::vector<PendingMate> delay(kWindow + 1);
	std::vector<bool> used(kWindow + 1, false);
	SAMRecord r;
	long emitted = 0;
	int pos = 10000;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);

	// The repeat's first mates (buggy file only): near the start.
	int repeat = buggy ? kRepeatReads : 0;
	for (int i = 0; i < repeat; i++) {
		makeRecord(r, i, 5000 + i / 64, 2005000 + i / 64, false, "HWI-R");
		fixmate.handleAlignment(r);
	}
	for (long p = 0; p < kPairs; p++) {
		// the second mates whose turn it is
		long slot = emitted % (kWindow + 1);
		if (used[slot]) {
			fixmate.handleAlignment(delay[slot].rec);
			used[slot] = false;
		}
		pos += rnd(3);
		int isize = 200 + (int)rnd(300);
		makeRecord(r, p, pos, pos + isize, false, "HWI-ST");
		fixmate.handleAlignment(r);
		long due = emitted + 1 + rnd(kWindow);
		long s = due % (kWindow + 1);
		while (used[s])
			s = (s + 1) % (kWindow + 1);
		makeRecord(delay[s].rec, p, pos + isize, pos, true, "HWI-ST");
		delay[s].due = due;
		used[s] = true;
		emitted++;
		// the repeat's second mates, 2 Mb on
		if (buggy && pos >= 2005000 && repeat > 0) {
			for (int i = kRepeatReads - repeat; i < kRepeatReads; i++) {
				makeRecord(r, i, 2005000 + i / 64, 5000 + i / 64, true, "HWI-R");
				fixmate.handleAlignment(r);
			}
			repeat = 0;
		}
	}
	for (long s = 0; s <= kWindow; s++)
		if (used[s])
			fixmate.handleAlignment(delay[s].rec);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	const FixMateStats& st = fixmate.stats;
	uint64_t sum = st.fragSum * 31 + st.numFR * 7 + st.numRF * 5 + st.numDifferent;
	for (int i = 0; i < 64; i++)
		sum = sum * 1000003u + st.histogram[i];
	std::printf("fixmate_erase %s: alignments=%llu mateless=%zu buckets=%zu checksum=%016llx\n",
		    argv[1], (unsigned long long)st.alignments, fixmate.mateless(), fixmate.buckets(),
		    (unsigned long long)sum);
	return 0;
}
