/*
 * dali_unsubscribe (HPCC-10660): daclient.cpp
 * The client side of the session protocol (dali/base/dasess.cpp's
 * CClientSessionManager, daclient.cpp): each call serializes the request
 * with the caller's user descriptor and waits for Dali's reply.
 */
#include "dali_unsubscribe.h"

static thread_local CReplySlot replySlot;

static void appendUser(CMessageBuffer &mb, int fn, const IUserDescriptor &udesc)
{
	mb.append(fn).append(udesc.user).append(udesc.encpassword);
}

SessionId clientRegisterSession(const char *node, int role, const std::vector<SessionId> &watch, const IUserDescriptor &udesc)
{
	CMessageBuffer mb;
	appendUser(mb, MSR_REGISTER_SESSION, udesc);
	mb.append(std::string(node)).append(role).append((uint32_t)watch.size());
	for (SessionId peer : watch)
		mb.append(peer);
	queryCoven().sendRecv(mb, replySlot);
	SessionId id;
	mb.read(id);
	return id;
}

SubscriptionId clientSubscribeSession(SessionId sessid, const char *client, const IUserDescriptor &udesc)
{
	SubscriptionId sid = queryCoven().getUniqueId();
	CMessageBuffer mb;
	appendUser(mb, MSR_SUBSCRIBE_SESSION, udesc);
	mb.append(sid).append(sessid).append(std::string(client));
	queryCoven().sendRecv(mb, replySlot);
	bool ok;
	mb.read(ok);
	return ok ? sid : 0;
}

bool clientUnsubscribeSession(SubscriptionId id, const IUserDescriptor &udesc)
{
	CMessageBuffer mb;
	appendUser(mb, MSR_UNSUBSCRIBE_SESSION, udesc);
	mb.append(id);
	queryCoven().sendRecv(mb, replySlot);
	bool ok;
	mb.read(ok);
	return ok;
}

unsigned clientGetPermissions(const char *scope, const IUserDescriptor &udesc)
{
	CMessageBuffer mb;
	appendUser(mb, MSR_LOOKUP_LDAP_PERMISSIONS, udesc);
	mb.append(std::string(scope));
	queryCoven().sendRecv(mb, replySlot);
	unsigned perms;
	mb.read(perms);
	return perms;
}
