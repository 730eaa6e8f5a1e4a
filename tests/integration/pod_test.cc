// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --by pod (src/sys/pods.c, groups.c) on kubepods-shaped cgroups this test makes under
// the memory controller, as the kubelet makes them with either cgroup driver and in every QoS
// class (v1 on the test machine, v2 in the VM matrix), each with a process holding a known
// amount of locked anonymous memory, and OCI bundles planted in a directory given with
// --oci-bundles: each container's pages are its group's, labelled with its pod and names.
// Run as root.
#include <sys/mman.h>

#include <fstream>
#include <memory>

#include "helpers.h"
#include "cgroups.h"

using namespace mstest;

namespace {

// A container (or a pod's own cgroup) the test makes: its cgroup path under the test's top
// cgroup, what memstat should say of it, and the MiB its process holds.
struct Want {
	std::string rel, qos, uid, id, runtime, ns, pod, container, name;
	long mib;
};

// Anonymous memory, touched and locked (no reclaim takes it while we count)
bool hold_anon(long mib)
{
	void *p = mmap(nullptr, mib * kMiB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return p != MAP_FAILED && mlock(p, mib * kMiB) == 0;
}

// Processes in cgroups, ended last first: each holds the pipes of those made before it (fork),
// so an earlier one sees its end only once the later ones are gone
struct Members {
	std::vector<std::unique_ptr<Member>> m;
	~Members()
	{
		while (!m.empty())
			m.pop_back();
	}
};

void put(const std::string &path, const std::string &text)
{
	std::system(("mkdir -p \"$(dirname '" + path + "')\"").c_str());
	std::ofstream(path) << text;
}

// A directory of OCI bundles for --oci-bundles, removed at the end
struct BundleDir {
	std::string dir;
	BundleDir()
	{
		char tmpl[] = "/tmp/memstat-bundles-XXXXXX";
		if (mkdtemp(tmpl))
			dir = tmpl;
	}
	~BundleDir()
	{
		if (!dir.empty())
			std::system(("rm -rf '" + dir + "'").c_str());
	}
};

json group_by_cgroup_id(const json &j, unsigned long long id)
{
	for (auto &g : j["groups"])
		if (g.contains("cgroup_id") && g["cgroup_id"].is_number() &&
		    g["cgroup_id"].get<unsigned long long>() == id)
			return g;
	return nullptr;
}

TEST(ByPod, BothDriversEveryQosClassNamedFromBundles)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	std::string top = test_name("pod");
	const std::string c64 = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
	auto id = [&](char c) { return std::string(1, c) + c64.substr(1); };
	std::vector<Want> want = {
		// cgroupfs driver: Guaranteed (named by a containerd bundle), Burstable (CRI-O),
		// BestEffort (its bundle says another pod: no names)
		{ "kubepods/pod11111111-aaaa-4bbb-8ccc-000000000001/" + id('1'), "guaranteed",
		  "11111111-aaaa-4bbb-8ccc-000000000001", id('1'), "", "prod", "shop-7d9", "web",
		  "prod/shop-7d9/web", 24 },
		{ "kubepods/burstable/pod22222222-aaaa-4bbb-8ccc-000000000002/" + id('2'),
		  "burstable", "22222222-aaaa-4bbb-8ccc-000000000002", id('2'), "", "data", "pg-0",
		  "db", "data/pg-0/db", 20 },
		{ "kubepods/besteffort/pod33333333-aaaa-4bbb-8ccc-000000000003/" + id('3'),
		  "besteffort", "33333333-aaaa-4bbb-8ccc-000000000003", id('3'), "", "", "", "",
		  "pod 33333333-aaaa-4bbb-8ccc-000000000003/" + id('3').substr(0, 12), 16 },
		// systemd driver: the UID's dashes written '_', the runtime's scope
		{ "kubepods.slice/kubepods-pod44444444_aaaa_4bbb_8ccc_000000000004.slice/"
		  "cri-containerd-" + id('4') + ".scope", "guaranteed",
		  "44444444-aaaa-4bbb-8ccc-000000000004", id('4'), "cri-containerd", "kube-system",
		  "coredns-5d7", "POD", "kube-system/coredns-5d7/POD", 12 },
		{ "kubepods.slice/kubepods-burstable.slice/"
		  "kubepods-burstable-pod55555555_aaaa_4bbb_8ccc_000000000005.slice/crio-" + id('5') +
		  ".scope", "burstable", "55555555-aaaa-4bbb-8ccc-000000000005", id('5'), "crio",
		  "", "", "", "pod 55555555-aaaa-4bbb-8ccc-000000000005/" + id('5').substr(0, 12),
		  10 },
		{ "kubepods.slice/kubepods-besteffort.slice/"
		  "kubepods-besteffort-pod66666666_aaaa_4bbb_8ccc_000000000006.slice/docker-" +
		  id('6') + ".scope", "besteffort", "66666666-aaaa-4bbb-8ccc-000000000006", id('6'),
		  "docker", "legacy", "old-1", "app", "legacy/old-1/app", 8 },
		// a pod's own cgroup (no container below it: a v2 parent with children holds none)
		{ "kubepods/burstable/pod77777777-aaaa-4bbb-8ccc-000000000007", "burstable",
		  "77777777-aaaa-4bbb-8ccc-000000000007", "", "", "", "", "",
		  "pod 77777777-aaaa-4bbb-8ccc-000000000007", 6 },
	};

	BundleDir bd;
	ASSERT_FALSE(bd.dir.empty());
	const std::string &bundles = bd.dir;
	put(bundles + "/" + id('1') + "/config.json", R"({"annotations":{
		"io.kubernetes.cri.container-type":"container","io.kubernetes.cri.container-name":"web",
		"io.kubernetes.cri.sandbox-name":"shop-7d9","io.kubernetes.cri.sandbox-namespace":"prod",
		"io.kubernetes.cri.sandbox-uid":"11111111-aaaa-4bbb-8ccc-000000000001"}})");
	put(bundles + "/" + id('2') + "/userdata/config.json", R"({"annotations":{
		"io.kubernetes.container.name":"db","io.kubernetes.pod.name":"pg-0",
		"io.kubernetes.pod.namespace":"data",
		"io.kubernetes.pod.uid":"22222222-aaaa-4bbb-8ccc-000000000002"}})");
	put(bundles + "/" + id('3') + "/config.json", R"({"annotations":{
		"io.kubernetes.cri.container-name":"x","io.kubernetes.cri.sandbox-name":"y",
		"io.kubernetes.cri.sandbox-namespace":"z",
		"io.kubernetes.cri.sandbox-uid":"99999999-aaaa-4bbb-8ccc-000000000009"}})");
	put(bundles + "/" + id('4') + "/config.json", R"({"annotations":{
		"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"coredns-5d7",
		"io.kubernetes.cri.sandbox-namespace":"kube-system"}})");
	put(bundles + "/" + id('6') + "/config.v2.json", R"({"Config":{"Labels":{
		"io.kubernetes.container.name":"app","io.kubernetes.pod.name":"old-1",
		"io.kubernetes.pod.namespace":"legacy"}}})");

	Tree tree(h);
	Members members;
	std::vector<unsigned long long> ids;
	for (auto &w : want) {
		Cgroup *cg = tree.make(top + "/" + w.rel);
		ASSERT_NE(cg, nullptr);
		ids.push_back(cg->id());
		long mib = w.mib;
		members.m.push_back(std::make_unique<Member>(*cg, [mib] { return hold_anon(mib); }));
		ASSERT_TRUE(members.m.back()->ok()) << "the process in " << cg->dir();
	}

	RunResult r = run_memstat({ "--json", "--by", "pod", "--oci-bundles", bundles });
	ASSERT_EQ(r.status, 0);
	json j = json::parse(r.out);
	EXPECT_EQ(j["by"], "pod");
	for (size_t i = 0; i < want.size(); i++) {
		const Want &w = want[i];
		json g = group_by_cgroup_id(j, ids[i]);
		ASSERT_FALSE(g.is_null()) << "no group for " << w.rel << " (id " << ids[i] << ")";
		EXPECT_EQ(g["name"], w.name) << w.rel;
		EXPECT_EQ(g["in_pod"], true);
		EXPECT_EQ(g["qos"], w.qos) << w.rel;
		EXPECT_EQ(g["pod_uid"], w.uid) << w.rel;
		EXPECT_EQ(g["cgroup"], (h.root == "/" ? "" : h.root) + "/" + top + "/" + w.rel);
		if (w.id.empty())
			EXPECT_TRUE(g["container_id"].is_null()) << w.rel;
		else
			EXPECT_EQ(g["container_id"], w.id) << w.rel;
		if (w.runtime.empty())
			EXPECT_TRUE(g["runtime"].is_null()) << w.rel;
		else
			EXPECT_EQ(g["runtime"], w.runtime) << w.rel;
		if (w.ns.empty()) {
			EXPECT_TRUE(g["namespace"].is_null() && g["pod"].is_null() &&
				    g["container"].is_null()) << w.rel << ": " << g.dump();
		} else {
			EXPECT_EQ(g["namespace"], w.ns) << w.rel;
			EXPECT_EQ(g["pod"], w.pod) << w.rel;
			EXPECT_EQ(g["container"], w.container) << w.rel;
		}
		// its process's locked memory, and little else (its stack, a few copied pages)
		long long anon = g["pages"]["anon"].get<long long>() * page_size();
		EXPECT_GE(anon, w.mib * kMiB) << w.rel;
		EXPECT_LE(anon, (w.mib + 2) * kMiB) << w.rel;
	}
	bool other_pod = false;
	for (auto &g : j["groups"])
		other_pod |= g["name"] == "(not in a pod)";
	EXPECT_TRUE(other_pod) << "the rest of the machine's cgroups: " << r.out.substr(0, 2000);

	// the table names each container, and the Prometheus series carry the labels
	RunResult t = run_memstat({ "--by", "pod", "--oci-bundles", bundles });
	ASSERT_EQ(t.status, 0);
	for (auto &w : want)
		EXPECT_NE(t.out.find("  " + w.name + "\n"), std::string::npos) << w.name << "\n"
									      << t.out;
	TempFile prom("/tmp");
	ASSERT_GE(prom.fd(), 0);
	RunResult p = run_memstat({ "--by", "pod", "--oci-bundles", bundles, "-f", "prom", "-o",
				    prom.path() });
	ASSERT_EQ(p.status, 0);
	std::string text = read_file(prom.path());
	std::string web = "memstat_group_pages{by=\"pod\",group=\"prod/shop-7d9/web\",key=\"" +
			  std::to_string(ids[0]) + "\",qos=\"guaranteed\",pod_uid=\"" + want[0].uid +
			  "\",container_id=\"" + want[0].id + "\",namespace=\"prod\",pod=\"shop-7d9\","
			  "container=\"web\",class=\"anon\"} ";
	EXPECT_NE(text.find(web), std::string::npos) << web << "\n" << text.substr(0, 3000);
}

// An OCI bundle is read as a file: a container's names never come from a symbolic link (which
// could point anywhere), and a name with control characters reaches no terminal raw.
TEST(ByPod, BundleNamesAreEscapedAndLinksNotFollowed)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	std::string top = test_name("podesc");
	const std::string a = "aaaa" + std::string(60, '0'), b = "bbbb" + std::string(60, '0');
	BundleDir bd;
	ASSERT_FALSE(bd.dir.empty());
	const std::string &bundles = bd.dir;
	put(bundles + "/" + a + "/config.json", R"({"annotations":{
		"io.kubernetes.cri.container-name":"evil\u001b[2Jname",
		"io.kubernetes.cri.sandbox-name":"p","io.kubernetes.cri.sandbox-namespace":"n"}})");
	put(bundles + "/real.json", R"({"annotations":{
		"io.kubernetes.cri.container-name":"linked",
		"io.kubernetes.cri.sandbox-name":"p","io.kubernetes.cri.sandbox-namespace":"n"}})");
	std::system(("mkdir -p '" + bundles + "/" + b + "' && ln -s ../real.json '" + bundles +
		     "/" + b + "/config.json'").c_str());

	Tree tree(h);
	Cgroup *ca = tree.make(top + "/kubepods/burstable/pod1/" + a);
	Cgroup *cb = tree.make(top + "/kubepods/burstable/pod1/" + b);
	ASSERT_TRUE(ca && cb);
	Member ma(*ca, [] { return hold_anon(4); }), mb(*cb, [] { return hold_anon(4); });
	ASSERT_TRUE(ma.ok() && mb.ok());

	RunResult t = run_memstat({ "--by", "pod", "--oci-bundles", bundles });
	ASSERT_EQ(t.status, 0);
	EXPECT_EQ(t.out.find('\x1b'), std::string::npos) << "an escape reached the terminal";
	EXPECT_NE(t.out.find("n/p/evil\\x1b[2Jname"), std::string::npos) << t.out;
	EXPECT_EQ(t.out.find("linked"), std::string::npos) << t.out;
	EXPECT_NE(t.out.find("pod 1/bbbb00000000"), std::string::npos) << t.out;
}

// A container's cgroup removed while its page cache stays charged to it: up to 6.18 its pages are
// "(removed) id N", as --by cgroup shows them (a removed cgroup's path, and so its pod, is gone);
// from 7.x the kernel hands them to the nearest live ancestor, the pod's own cgroup: its row.
TEST(ByPod, RemovedContainersPagesAreItsOwnGroupOrThePods)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	int kind = memcg_kind();
	ASSERT_TRUE(kind == MS_MEMCG_DIRECT || kind == MS_MEMCG_OBJCG)
		<< "the probe could not tell what a user folio's memcg_data points to";
	std::string pod = test_name("podrm") + "/kubepods/burstable/pod42";
	Tree tree(h);
	Cgroup *ctr = tree.make(pod + "/" + std::string(64, 'c'));
	ASSERT_NE(ctr, nullptr);
	unsigned long long pod_id = 0;
	for (auto &c : tree.cgs)
		if (c->dir() == h.mount + "/" + pod)
			pod_id = c->id();
	ASSERT_NE(pod_id, 0u);
	TempFile f("/var/tmp");
	ASSERT_GE(f.fd(), 0);
	const size_t len = 32 * kMiB;
	// the reader stays, locking the file's pages, but moves to the root: its charges stay
	Member m(*ctr, [&] { return fill_drop_read(f.fd(), len) && lock_file(f.fd(), len); });
	ASSERT_TRUE(m.ok()) << "the reader in " << ctr->dir();
	unsigned long long id = ctr->id();
	ASSERT_TRUE(ctr->remove());

	RunResult r = run_memstat({ "--json", "--by", "pod", "--min", "0" });
	ASSERT_EQ(r.status, 0);
	json j = json::parse(r.out);
	json gone = group_by_cgroup_id(j, id), p = group_by_cgroup_id(j, pod_id);
	const long long want = len / page_size();
	if (kind == MS_MEMCG_DIRECT) {
		ASSERT_FALSE(gone.is_null()) << "no group for the removed container's id " << id;
		EXPECT_EQ(gone["name"], "(removed) id " + std::to_string(id));
		EXPECT_EQ(gone["removed"], true);
		EXPECT_EQ(gone["in_pod"], false);
		EXPECT_GE(gone["pages"]["page_cache"].get<long long>(), want);
	} else {
		EXPECT_TRUE(gone.is_null()) << "the pages were to go to the pod: " << gone.dump();
		ASSERT_FALSE(p.is_null()) << "no group for the pod's own cgroup " << pod;
		EXPECT_EQ(p["name"], "pod 42");
		EXPECT_TRUE(p["container_id"].is_null());
		EXPECT_GE(p["pages"]["page_cache"].get<long long>(), want);
	}
}

// A user given a delegated cgroup subtree makes cgroups of any name, owned by the user: one
// shaped like a pod's is not taken for one (the kubelet's are root's), its pages are "(not in a
// pod)".
TEST(ByPod, CgroupsOfAUserAreNoPods)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	std::string top = test_name("poduser");
	Tree tree(h);
	Cgroup *real = tree.make(top + "/kubepods/burstable/pod1/" + std::string(64, 'a'));
	Cgroup *fake = tree.make(top + "/kubepods/burstable/pod2/" + std::string(64, 'b'));
	ASSERT_TRUE(real && fake);
	std::string pod2 = h.mount + "/" + top + "/kubepods/burstable/pod2";
	ASSERT_EQ(chown(pod2.c_str(), 65534, 65534), 0) << strerror(errno);
	ASSERT_EQ(chown(fake->dir().c_str(), 65534, 65534), 0) << strerror(errno);
	Member mr(*real, [] { return hold_anon(4); }), mf(*fake, [] { return hold_anon(4); });
	ASSERT_TRUE(mr.ok() && mf.ok());

	RunResult r = run_memstat({ "--json", "--by", "pod" });
	ASSERT_EQ(r.status, 0);
	json j = json::parse(r.out);
	EXPECT_FALSE(group_by_cgroup_id(j, real->id()).is_null()) << "the root-owned pod's";
	EXPECT_TRUE(group_by_cgroup_id(j, fake->id()).is_null()) << "the user's cgroup: no pod";
	for (auto &g : j["groups"])
		EXPECT_NE(g.value("pod_uid", json()), json("2")) << g.dump();
}

} // namespace
