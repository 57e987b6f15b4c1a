/*
 * dali_unsubscribe (HPCC-10660): mputil.cpp
 * CMessageHandler (system/mp/mputil.hpp): received messages are queued to a
 * pool of threads, each running the server's processMessage().
 */
#include "dali_unsubscribe.h"

CMessageHandler::CMessageHandler(const char *_name, std::function<void(CMessageBuffer &)> fn, unsigned maxthreads)
	: name(_name), process(std::move(fn))
{
	for (unsigned i = 0; i < maxthreads; i++)
		threads.emplace_back(&CMessageHandler::threadmain, this);
}

CMessageHandler::~CMessageHandler()
{
	stop();
}

void CMessageHandler::handleMessage(CMessageBuffer &mb)
{
	std::lock_guard<std::mutex> lk(sect);
	queue.push_back(std::move(mb));
	cond.notify_one();
}

void CMessageHandler::threadmain()
{
	for (;;) {
		CMessageBuffer mb;
		{
			std::unique_lock<std::mutex> lk(sect);
			cond.wait(lk, [this] { return stopping || !queue.empty(); });
			if (queue.empty())
				return;
			mb = std::move(queue.front());
			queue.pop_front();
		}
		process(mb);
	}
}

void CMessageHandler::stop()
{
	{
		std::lock_guard<std::mutex> lk(sect);
		stopping = true;
		cond.notify_all();
	}
	for (auto &t : threads)
		if (t.joinable())
			t.join();
}
