// fixmate_erase (BirolLab/abyss#44; see main.cpp): ParseAligns/abyss-fixmate.cc,
// the pairing of mates (the host of the hash map's erase).
#include "SAM.h"

#include <cstdio>
#include <cstdlib>

void FixMate::handlePair(const SAMAlignment& a0, const SAMRecord& a1)
{
	if (a0.tid != a1.tid) {
		stats.numDifferent++;
		return;
	}
	bool rev0 = a0.flag & 0x10, rev1 = a1.flag & 0x10;
	int isize = a1.pos - a0.pos;
	if (rev0 == rev1)
		stats.numFF++;
	else if ((isize >= 0) == !rev0)
		stats.numFR++;
	else
		stats.numRF++;
	unsigned size = (unsigned)std::abs(isize);
	stats.fragSum += size;
	stats.histogram[size / 64 < 63 ? size / 64 : 63]++;
}

void FixMate::printProgress()
{
	if (m_verbose == 0)
		return;
	if (m_prevBuckets == 0)
		m_prevBuckets = m_alignments.bucket_count();
	size_t buckets = m_alignments.bucket_count();
	if (stats.alignments % 1000000 == 0 || buckets != m_prevBuckets) {
		m_prevBuckets = buckets;
		size_t size = m_alignments.size();
		std::fprintf(stderr, "Read %llu alignments. Hash load: %zu / %zu = %g\n",
			     (unsigned long long)stats.alignments, size, buckets, (double)size / buckets);
	}
}

void FixMate::handleAlignment(const SAMRecord& sam)
{
	std::pair<Alignments::iterator, bool> it =
		m_alignments.insert(Alignments::value_type(sam.qname, sam));
	if (!it.second) {
		SAMAlignment a0 = it.first->second;
		handlePair(a0, sam);
		m_alignments.erase(it.first);
	}
	stats.alignments++;
	printProgress();
}
