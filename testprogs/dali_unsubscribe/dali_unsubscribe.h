/*
 * dali_unsubscribe (HPCC-10660): dali_unsubscribe.h
 * Shared declarations: the message buffer of system/mp/mpbuff.hpp, the
 * coven of dali/base/dacoven.hpp, the message handler pool of
 * system/mp/mputil.hpp, the session manager of dali/base/dasess.hpp, and
 * jlib's hashing and encryption (jhash.hpp, jencrypt.hpp).
 */
#ifndef DALI_UNSUBSCRIBE_H
#define DALI_UNSUBSCRIBE_H

#include <pthread.h>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

typedef unsigned char byte;
typedef uint64_t SessionId;
typedef uint64_t SubscriptionId;

/* jhash.cpp */
unsigned hashc(const byte *k, unsigned length, unsigned initval);

/* jencrypt.cpp: the user descriptor's password travels encrypted */
void encrypt(std::string &out, const char *in, const uint32_t key[4]);
void decrypt(std::string &out, const std::string &in, const uint32_t key[4]);
extern const uint32_t daliEncryptKey[4];

/* jtime: msTick() and the microsecond clock */
int64_t usTick();
unsigned msTick();

/* mpbuff.hpp: a growable buffer read and written in order */
class CReplySlot;
class CMessageBuffer {
public:
	std::vector<byte> buf;
	size_t readPos = 0;
	int tag = 0;
	CReplySlot *replyTo = nullptr;

	CMessageBuffer &append(const void *p, size_t len)
	{
		const byte *b = static_cast<const byte *>(p);
		buf.insert(buf.end(), b, b + len);
		return *this;
	}
	template <typename T> CMessageBuffer &append(T v) { return append(&v, sizeof v); }
	CMessageBuffer &append(const std::string &s)
	{
		uint32_t len = (uint32_t)s.size();
		append(len);
		return append(s.data(), len);
	}
	template <typename T> CMessageBuffer &read(T &v)
	{
		memcpy(&v, buf.data() + readPos, sizeof v);
		readPos += sizeof v;
		return *this;
	}
	CMessageBuffer &read(std::string &s)
	{
		uint32_t len;
		read(len);
		s.assign(reinterpret_cast<const char *>(buf.data() + readPos), len);
		readPos += len;
		return *this;
	}
	size_t length() const { return buf.size(); }
	void clear() { buf.clear(); readPos = 0; }
};

/* a synchronous sendRecv() waits on its reply slot */
class CReplySlot {
public:
	std::mutex m;
	std::condition_variable cv;
	bool done = false;
	CMessageBuffer reply;
	void wait()
	{
		std::unique_lock<std::mutex> lk(m);
		cv.wait(lk, [this] { return done; });
		done = false;
	}
	void signal(CMessageBuffer &&mb)
	{
		std::lock_guard<std::mutex> lk(m);
		reply = std::move(mb);
		done = true;
		cv.notify_one();
	}
};

/* mpcomm.cpp: the coven's inbound queue for one message tag */
class ICoven {
public:
	void send(CMessageBuffer &&mb);
	bool recv(CMessageBuffer &mb);	/* blocks; false once cancelled */
	void reply(CMessageBuffer &request, CMessageBuffer &&reply);
	void sendRecv(CMessageBuffer &mb, CReplySlot &slot);
	void cancel();
	SubscriptionId getUniqueId();
	uint64_t messagesReceived() const { return nreceived; }
private:
	std::mutex qsect;
	std::condition_variable qcond;
	std::deque<CMessageBuffer> inbound;
	bool cancelled = false;
	uint64_t nreceived = 0;
	std::atomic<uint64_t> uidSeq{ 0 };
};
ICoven &queryCoven();

/* mputil.cpp: CMessageHandler, a pool of threads running processMessage */
class CMessageHandler {
public:
	CMessageHandler(const char *name, std::function<void(CMessageBuffer &)> fn, unsigned maxthreads);
	~CMessageHandler();
	void handleMessage(CMessageBuffer &mb);
	void stop();
private:
	void threadmain();
	std::string name;
	std::function<void(CMessageBuffer &)> process;
	std::vector<std::thread> threads;
	std::mutex sect;
	std::condition_variable cond;
	std::deque<CMessageBuffer> queue;
	bool stopping = false;
};

/* dasess.cpp */
enum MSessionRequestKind {
	MSR_REGISTER_SESSION,
	MSR_LOOKUP_PROCESS_SESSION,
	MSR_SUBSCRIBE_SESSION,
	MSR_UNSUBSCRIBE_SESSION,
	MSR_LOOKUP_LDAP_PERMISSIONS,
	MSR_STOP_SESSION,
	MSR_EXIT
};

/* ISessionNotify subscriptions, held through their interface (jlib's
IInterface style: virtual accessors, reference counted) */
class ISubscriptionProxy {
public:
	virtual ~ISubscriptionProxy() {}
	virtual SubscriptionId getId() const = 0;
	virtual SessionId getSessionId() const = 0;
	virtual const std::string &queryClient() const = 0;
};

class CSessionSubscriptionProxy : public ISubscriptionProxy {
public:
	CSessionSubscriptionProxy(SubscriptionId _id, SessionId _sessid, const std::string &_client)
		: id(_id), sessid(_sessid), client(_client) {}
	SubscriptionId getId() const override { return id; }
	SessionId getSessionId() const override { return sessid; }
	const std::string &queryClient() const override { return client; }
	std::atomic<unsigned> linkcount{ 1 };
private:
	SubscriptionId id;
	SessionId sessid;
	std::string client;
};

struct CSessionState {
	SessionId id;
	std::string node;
	int role;
	bool stopped;
};

class CCovenSessionManager {
public:
	SessionId registerSession(const std::string &node, int role);
	bool lookupSession(SessionId id);
	void subscribeSession(SubscriptionId id, SessionId sessid, const std::string &client);
	bool unsubscribeSession(SubscriptionId id);
	unsigned getPermissions(const std::string &user, const std::string &password, const std::string &scope);
	unsigned subscriptionCount();
	uint64_t checksum();
private:
	std::mutex sessionsect;
	std::unordered_map<SessionId, CSessionState> sessions;
	std::mutex subscriptionsect;
	std::vector<ISubscriptionProxy *> subscriptionProxies;
	std::mutex permsect;
	std::unordered_map<std::string, unsigned> permissionsCache;
	SessionId nextSessionId = 0x10000;
	uint64_t removed = 0, notFound = 0;
};
CCovenSessionManager &querySessionManager();

/* the server side: the request thread and its handler pool */
class CSessionRequestServer {
public:
	explicit CSessionRequestServer(unsigned nthreads);
	void start();
	void stop();
	uint64_t handled() const { return nhandled; }
	uint64_t replyChecksum() const { return replysum; }
private:
	void run();
	void processMessage(CMessageBuffer &mb);
	CMessageHandler handler;
	std::thread thread;
	std::atomic<uint64_t> nhandled{ 0 };
	std::atomic<uint64_t> replysum{ 0 };
};

/* daclient.cpp: the client side of the protocol */
struct IUserDescriptor {
	std::string user;
	std::string encpassword;
};
SessionId clientRegisterSession(const char *node, int role, const std::vector<SessionId> &watch, const IUserDescriptor &udesc);
SubscriptionId clientSubscribeSession(SessionId sessid, const char *client, const IUserDescriptor &udesc);
bool clientUnsubscribeSession(SubscriptionId id, const IUserDescriptor &udesc);
unsigned clientGetPermissions(const char *scope, const IUserDescriptor &udesc);

#endif
