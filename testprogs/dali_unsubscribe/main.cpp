/*
 * dali_unsubscribe - HPCC-10660: "Improve efficiency of subscription session
 * remove" (HPCC Systems platform, Dali server)
 * https://track.hpccsystems.com/browse/HPCC-10660,
 * https://github.com/hpcc-systems/HPCC-Platform/pull/5282
 *
 * The real bug: Dali's session manager (dali/base/dasess.cpp) keeps the
 * subscriptions clients hold on sessions (to be told when a process session
 * stops) in an array, and removing one looked it up by a linear search
 * under the subscription lock. On a large system (many Thor slaves, ESP and
 * Roxie processes, each subscribing for the jobs it works on) every
 * unsubscribe walked thousands of entries while the handler threads queued
 * behind the lock. The fix (PR 5279/5282) converted the linear lookup to a
 * hash table lookup.
 *
 * Here (C++: std::thread, std::mutex, std::condition_variable, std::deque,
 * std::function): client threads talk to the Dali session request server
 * through the coven's inbound queue with synchronous sendRecv(); the
 * server's request thread (CSessionRequestServer::run, an accept/dispatch
 * loop) hands each message to a CMessageHandler pool whose threads decrypt
 * the caller's user descriptor and process the request: subscribe to a
 * session, unsubscribe, or look up LDAP permissions. First the cluster's
 * processes register, each subscribing to the sessions it depends on; then
 * each client subscribes to the process a job runs on and, keeping a working
 * set of 24, drops a random earlier one when a job finishes. normal: 200
 * processes watching 3 sessions each (600 subscriptions held); buggy: a
 * larger cluster, 4000 processes watching 8 each (32,000 held). Both run
 * the same 3000 jobs per client.
 *
 * Root cause: CCovenSessionManager::unsubscribeSession() (dasess.cpp), its
 * linear search of subscriptionProxies (ROOT CAUSE). Key variables: i (the
 * search position) and this->subscriptionProxies (its size).
 * Pattern: scalability.
 *
 * Files, as in HPCC-Platform: dasess.cpp (the session manager and request
 * server: the root cause), daclient.cpp (the client calls), mpcomm.cpp (the
 * coven's message queue and clock), mputil.cpp (CMessageHandler's thread
 * pool), jhash.cpp (hashc), jencrypt.cpp (password encryption),
 * dali_unsubscribe.h; main.cpp (this driver: the cluster's processes).
 */
#include "dali_unsubscribe.h"

static const unsigned N_CLIENTS = 4;
static const unsigned OPS_PER_CLIENT = 3000;
static const unsigned CLIENT_WORKING_SET = 24;
static const unsigned N_SCOPES = 40;

struct workload_t {
	unsigned n_processes;	/* registered process sessions */
	unsigned watches;	/* sessions each process subscribes to */
};
static workload_t workload;
static std::vector<SessionId> processSessions;

struct client_arg {
	unsigned no;
	uint64_t result;
	unsigned perms;
};

static void client_thread(client_arg *arg)
{
	char name[32], password[64];
	snprintf(name, sizeof name, "thorslave%02u", arg->no);
	snprintf(password, sizeof password, "s3cret-%u-%s", arg->no * 7919, name);
	IUserDescriptor udesc;
	udesc.user = name;
	encrypt(udesc.encpassword, password, daliEncryptKey);

	uint64_t s = 0x2545f4914f6cdd1dull * (arg->no + 1);
	auto rnd = [&s]() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
	std::vector<SubscriptionId> held;
	uint64_t acc = 0;
	char client[80], scope[64];
	snprintf(client, sizeof client, "%s@10.0.%u.%u:7100", name, arg->no, 17 + arg->no);

	for (unsigned op = 0; op < OPS_PER_CLIENT; op++) {
		/* a job starts: watch the process it runs on */
		SessionId sessid = processSessions[rnd() % processSessions.size()];
		SubscriptionId sid = clientSubscribeSession(sessid, client, udesc);
		if (sid)
			held.push_back(sid);
		if (held.size() <= CLIENT_WORKING_SET)
			continue;
		/* a job finished: drop the subscription it held */
		size_t victim = rnd() % held.size();
		SubscriptionId old = held[victim];
		held[victim] = held.back();
		held.pop_back();
		acc += clientUnsubscribeSession(old, udesc) ? 1 : 1000;
		if (op % 4 == 0) {
			snprintf(scope, sizeof scope, "thor::jobs::w%04u", (unsigned)(rnd() % N_SCOPES));
			arg->perms += clientGetPermissions(scope, udesc);
		}
	}
	for (SubscriptionId sid : held)
		acc += clientUnsubscribeSession(sid, udesc) ? 1 : 1000;
	arg->result = acc;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Dali session subscriptions (HPCC-10660).\n"
		"  normal: 200 processes watching 3 sessions each; buggy: 4000 processes watching 8.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		workload = { 200, 3 };
	else if (strcmp(argv[1], "buggy") == 0)
		workload = { 4000, 8 };
	else
		return usage(argv[0]);

	CSessionRequestServer server(3);
	server.start();

	IUserDescriptor admin;
	admin.user = "daliadmin";
	encrypt(admin.encpassword, "admin-password", daliEncryptKey);
	/* the cluster's processes register, each watching some of those
	registered before it */
	char node[64];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	std::vector<SessionId> watch;
	for (unsigned i = 0; i < workload.n_processes; i++) {
		snprintf(node, sizeof node, "10.1.%u.%u:%u", i / 250, i % 250, 20100 + i % 8);
		watch.clear();
		for (unsigned w = 0; w < workload.watches && i > 0; w++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			watch.push_back(processSessions[s % i]);
		}
		processSessions.push_back(clientRegisterSession(node, (int)(i % 5), watch, admin));
	}

	std::vector<std::thread> clients;
	std::vector<client_arg> args(N_CLIENTS);
	for (unsigned i = 0; i < N_CLIENTS; i++) {
		args[i] = { i, 0, 0 };
		clients.emplace_back(client_thread, &args[i]);
	}
	uint64_t sum = 0;
	unsigned perms = 0;
	for (unsigned i = 0; i < N_CLIENTS; i++) {
		clients[i].join();
		sum = sum * 1000003 + args[i].result;
		perms += args[i].perms;
	}
	server.stop();
	CCovenSessionManager &manager = querySessionManager();
	printf("dali_unsubscribe %s: sessions=%u held=%u requests=%llu perms=%u checksum=%016llx\n", argv[1],
	       workload.n_processes, manager.subscriptionCount(), (unsigned long long)server.handled(), perms,
	       (unsigned long long)(sum ^ (manager.checksum() << 1) ^ (server.replyChecksum() << 7)));
	return 0;
}
