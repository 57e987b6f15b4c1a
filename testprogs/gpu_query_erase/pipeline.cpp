/*
 * gpu_query_erase - LumixEngine-1538: the render pipeline
 * (src/renderer/pipeline.cpp in Lumix): each pass (a view, a light's shadow
 * map) culls its objects against its frustum between a begin and an end GPU
 * timestamp query.
 */
#include "gpu_query_erase.h"

namespace Lumix {

static const char *const pass_kinds[] = { "main_view", "shadow_cascade", "point_light", "spot_light", "reflection_probe", "decals" };

Pipeline::Pipeline(GPUProfiler &profiler, u32 passes, u32 objects) : m_profiler(profiler)
{
	u64 s = 0x9e3779b97f4a7c15ull;
	auto rnd = [&s]() {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		return (float)(s >> 40) / (float)(1u << 24);
	};
	m_objects.resize(objects);
	for (Sphere &o : m_objects)
		o = { 100.0f * rnd() - 50.0f, 100.0f * rnd() - 50.0f, 100.0f * rnd() - 50.0f, 1.0f + 4.0f * rnd() };
	m_passes.resize(passes);
	for (u32 i = 0; i < passes; i++) {
		Pass &p = m_passes[i];
		p.name = pass_kinds[i % 6];
		for (int k = 0; k < 6; k++) {
			float nx = rnd() - 0.5f, ny = rnd() - 0.5f, nz = rnd() - 0.5f;
			p.plane[k][0] = nx;
			p.plane[k][1] = ny;
			p.plane[k][2] = nz;
			p.plane[k][3] = 40.0f * rnd();
		}
		p.objects = &m_objects;
	}
}

u32 Pipeline::cull(const Pass &pass, u64 frame)
{
	u32 visible = 0;
	float t = (float)(frame & 63) * 0.01f;
	for (const Sphere &o : *pass.objects) {
		int in = 1;
		for (int k = 0; k < 6; k++) {
			const float *pl = pass.plane[k];
			float d = pl[0] * (o.x + t) + pl[1] * o.y + pl[2] * (o.z - t) + pl[3];
			in &= d > -o.r;
		}
		visible += in;
	}
	return visible;
}

u32 Pipeline::render(u64 frame)
{
	u32 drawn = 0;
	for (size_t i = 0; i < m_passes.size(); i++) {
		const Pass &pass = m_passes[i];
		m_profiler.beginQuery(pass.name, (i64)i);
		u32 v = cull(pass, frame);
		drawn += v;
		m_profiler.endQuery();
	}
	m_visible_by_pass[m_passes[frame % m_passes.size()].name] += drawn;
	return drawn;
}

} // namespace Lumix
