/*
 * dali_unsubscribe (HPCC-10660): mpcomm.cpp
 * The message passing layer (system/mp/mpcomm.cpp, dali/base/dacoven.cpp):
 * the inbound queue of MPTAG_DALI_SESSION_REQUEST messages that Dali's
 * session request thread receives from, sendRecv() and reply(), and the
 * coven's unique ids.
 */
#include "dali_unsubscribe.h"
#include <time.h>

static ICoven coven;
ICoven &queryCoven() { return coven; }

int64_t usTick()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

unsigned msTick()
{
	return (unsigned)(usTick() / 1000);
}

void ICoven::send(CMessageBuffer &&mb)
{
	std::lock_guard<std::mutex> lk(qsect);
	inbound.push_back(std::move(mb));
	qcond.notify_one();
}

bool ICoven::recv(CMessageBuffer &mb)
{
	std::unique_lock<std::mutex> lk(qsect);
	qcond.wait(lk, [this] { return cancelled || !inbound.empty(); });
	if (inbound.empty())
		return false;
	mb = std::move(inbound.front());
	inbound.pop_front();
	nreceived++;
	return true;
}

void ICoven::reply(CMessageBuffer &request, CMessageBuffer &&reply)
{
	if (request.replyTo)
		request.replyTo->signal(std::move(reply));
}

void ICoven::sendRecv(CMessageBuffer &mb, CReplySlot &slot)
{
	mb.replyTo = &slot;
	send(std::move(mb));
	slot.wait();
	mb = std::move(slot.reply);
}

void ICoven::cancel()
{
	std::lock_guard<std::mutex> lk(qsect);
	cancelled = true;
	qcond.notify_all();
}

/* getUniqueId(): the coven's server rank, a start time and a counter */
SubscriptionId ICoven::getUniqueId()
{
	static const uint64_t base = ((uint64_t)(usTick() & 0xffffff) << 32);
	return base | (uidSeq.fetch_add(1) + 1);
}
