/*
 * dali_unsubscribe (HPCC-10660): dasess.cpp
 * Dali's session manager (dali/base/dasess.cpp): process sessions, the
 * subscriptions clients hold on other sessions (to be told when a session
 * stops), LDAP permissions with their cache, and the session request
 * server: a thread receiving MPTAG_DALI_SESSION_REQUEST messages and a
 * CMessageHandler pool processing them.
 */
#include "dali_unsubscribe.h"

static CCovenSessionManager sessionManager;
CCovenSessionManager &querySessionManager() { return sessionManager; }

SessionId CCovenSessionManager::registerSession(const std::string &node, int role)
{
	std::lock_guard<std::mutex> block(sessionsect);
	SessionId id = ++nextSessionId;
	sessions[id] = CSessionState{ id, node, role, false };
	return id;
}

bool CCovenSessionManager::lookupSession(SessionId id)
{
	std::lock_guard<std::mutex> block(sessionsect);
	auto it = sessions.find(id);
	return it != sessions.end() && !it->second.stopped;
}

void CCovenSessionManager::subscribeSession(SubscriptionId id, SessionId sessid, const std::string &client)
{
	CSessionSubscriptionProxy *proxy = new CSessionSubscriptionProxy(id, sessid, client);
	std::lock_guard<std::mutex> block(subscriptionsect);
	subscriptionProxies.push_back(proxy);
}

/* unsubscribeSession(): a client no longer wants to hear about a session
(it finished the work it did on that process's behalf). The subscriptions
are kept in an array in arrival order and found by a linear search under
the subscription lock: with thousands of clients holding subscriptions,
every unsubscribe walks thousands of proxies while the other handler
threads wait for the lock. The fix keys them by id in a hash table. */
bool CCovenSessionManager::unsubscribeSession(SubscriptionId id)
{
	std::lock_guard<std::mutex> block(subscriptionsect);
	for (size_t i = 0; i < subscriptionProxies.size(); i++) {	/* ROOT CAUSE */
		ISubscriptionProxy *proxy = subscriptionProxies[i];
		if (proxy->getId() == id) {
			subscriptionProxies.erase(subscriptionProxies.begin() + i);
			removed += proxy->getSessionId() & 0xff;
			delete proxy;
			return true;
		}
	}
	notFound++;
	return false;
}

/* getPermissionsLDAP(): the scope permissions of a user, cached by
user and scope; a miss asks LDAP (here, derives them from the names) */
unsigned CCovenSessionManager::getPermissions(const std::string &user, const std::string &password, const std::string &scope)
{
	std::string key = user;
	key.push_back('\x01');
	key += scope;
	{
		std::lock_guard<std::mutex> block(permsect);
		auto it = permissionsCache.find(key);
		if (it != permissionsCache.end())
			return it->second;
	}
	unsigned h = hashc(reinterpret_cast<const byte *>(password.data()), (unsigned)password.size(), 0);
	for (int round = 0; round < 64; round++)
		h = hashc(reinterpret_cast<const byte *>(key.data()), (unsigned)key.size(), h);
	unsigned perms = (h & 7) | 1;	/* SecAccess_Access at least */
	std::lock_guard<std::mutex> block(permsect);
	permissionsCache[key] = perms;
	return perms;
}

unsigned CCovenSessionManager::subscriptionCount()
{
	std::lock_guard<std::mutex> block(subscriptionsect);
	return (unsigned)subscriptionProxies.size();
}

uint64_t CCovenSessionManager::checksum()
{
	std::lock_guard<std::mutex> block(subscriptionsect);
	return removed * 1000003 + notFound;
}

CSessionRequestServer::CSessionRequestServer(unsigned nthreads)
	: handler("CSessionRequestServer", [this](CMessageBuffer &mb) { processMessage(mb); }, nthreads)
{
}

void CSessionRequestServer::start()
{
	thread = std::thread(&CSessionRequestServer::run, this);
}

void CSessionRequestServer::stop()
{
	queryCoven().cancel();
	if (thread.joinable())
		thread.join();
	handler.stop();
}

/* run(): the session request thread */
void CSessionRequestServer::run()
{
	ICoven &coven = queryCoven();
	CMessageBuffer mb;
	bool stopped = false;
	unsigned lastWarn = msTick();
	while (!stopped) {
		mb.clear();
		if (coven.recv(mb)) {
			handler.handleMessage(mb);
			unsigned now = msTick();
			if (now - lastWarn > 60000) {	/* TRACE_QWAITING */
				fprintf(stderr, "CSessionRequestServer: %llu requests\n",
					(unsigned long long)coven.messagesReceived());
				lastWarn = now;
			}
		} else {
			stopped = true;
		}
	}
}

/* processMessage(): one request, on a handler pool thread */
void CSessionRequestServer::processMessage(CMessageBuffer &mb)
{
	CCovenSessionManager &manager = querySessionManager();
	ICoven &coven = queryCoven();
	int fn;
	mb.read(fn);
	/* every request carries the caller's user descriptor */
	IUserDescriptor udesc;
	mb.read(udesc.user).read(udesc.encpassword);
	std::string password;
	decrypt(password, udesc.encpassword, daliEncryptKey);
	uint64_t result = 0;
	CMessageBuffer reply;
	switch (fn) {
	case MSR_REGISTER_SESSION: {
		/* a process registers and subscribes to the sessions it depends
		on (its master, the peers it exchanges data with) */
		std::string node;
		int role;
		uint32_t nwatch;
		mb.read(node).read(role).read(nwatch);
		SessionId id = manager.registerSession(node, role);
		for (uint32_t w = 0; w < nwatch; w++) {
			SessionId peer;
			mb.read(peer);
			if (manager.lookupSession(peer))
				manager.subscribeSession(coven.getUniqueId(), peer, node);
		}
		reply.append(id);
		result = id & 0xffff;
		break;
	}
	case MSR_LOOKUP_PROCESS_SESSION: {
		SessionId id;
		mb.read(id);
		bool ok = manager.lookupSession(id);
		reply.append(ok);
		result = ok;
		break;
	}
	case MSR_SUBSCRIBE_SESSION: {
		SubscriptionId sid;
		SessionId sessid;
		std::string client;
		mb.read(sid).read(sessid).read(client);
		bool ok = manager.lookupSession(sessid);
		if (ok)
			manager.subscribeSession(sid, sessid, client);
		reply.append(ok);
		result = ok ? 3 : 0;
		break;
	}
	case MSR_UNSUBSCRIBE_SESSION: {
		SubscriptionId sid;
		mb.read(sid);
		bool ok = manager.unsubscribeSession(sid);
		reply.append(ok);
		result = ok ? 5 : 0;
		break;
	}
	case MSR_LOOKUP_LDAP_PERMISSIONS: {
		std::string scope;
		mb.read(scope);
		unsigned perms = manager.getPermissions(udesc.user, password, scope);
		reply.append(perms);
		result = perms;
		break;
	}
	default:
		reply.append(-1);
		break;
	}
	replysum += result * 7 + (password.size() & 0xf);
	nhandled++;
	coven.reply(mb, std::move(reply));
}
