#!/usr/bin/env python3
# The pre-split probe of the tf32 mirror kernels (scripts/probe/mirror_tf32.sh's PROBE binary): applied to a checkout
# of 8fbe78f or later, a binary built from it stores each folded input of `mmamirror/…/f32` as a float2 of its tf32
# parts (high, low) when DG_PROBE_PRESPLIT=1, so that A's fragments are loaded without splitting (columns of 20 such
# values; the jumps as (value, 0), split in the lift as before). Not the generator: a probe.
# usage: python3 scripts/probe/mirror_tf32_presplit.py CHECKOUT
import sys, os
root=sys.argv[1]
p=os.path.join(root,'templates/nodal-tri/rhs_mirror_mma.tera')
s=open(p).read()
def rep(old,new,count=1):
    global s
    n=s.count(old)
    assert n==count, (old[:70], n)
    s=s.replace(old,new)
rep('''    LOCAL_MEM __align__(16) {{ xt }} s_x[''','''    LOCAL_MEM __align__(16) {{ st }} s_x[''')
rep('''SX((slot) * {{ reps_padded }} + c, e) = ({{ xt }})(value)''','''SX((slot) * {{ reps_padded }} + c, e) = {% if presplit %}dg_tf32_pair(value){% else %}({{ xt }})(value){% endif %}''')
rep('''for (int slot = 0; slot < {{ slots }}; ++slot) MIRROR_PUT(slot, 0);''','''for (int slot = 0; slot < {{ slots }}; ++slot) MIRROR_PUT(slot, 0.0f);''')
rep('''SX(JUMPS + v * NFACE_NODES + j, e) = ({{ xt }})jump[v];''','''SX(JUMPS + v * NFACE_NODES + j, e) = {% if presplit %}make_float2(jump[v], 0.0f){% else %}({{ xt }})jump[v]{% endif %};''')
rep('''#define DG_A_TF32(ah, al, slot, col) unsigned ah[4], al[4]; \\
    dg_tf32_split(IN0(slot, col), ah[0], al[0]); dg_tf32_split(IN1(slot, col), ah[1], al[1]); \\
    dg_tf32_split(IN0(slot, (col) + 4), ah[2], al[2]); dg_tf32_split(IN1(slot, (col) + 4), ah[3], al[3])''',
'''{% if presplit %}#define DG_A_TF32(ah, al, slot, col) unsigned ah[4], al[4]; \\
    { const float2 x0_ = IN0(slot, col), x1_ = IN1(slot, col), x2_ = IN0(slot, (col) + 4), x3_ = IN1(slot, (col) + 4); \\
      ah[0] = __float_as_uint(x0_.x); al[0] = __float_as_uint(x0_.y); ah[1] = __float_as_uint(x1_.x); al[1] = __float_as_uint(x1_.y); \\
      ah[2] = __float_as_uint(x2_.x); al[2] = __float_as_uint(x2_.y); ah[3] = __float_as_uint(x3_.x); al[3] = __float_as_uint(x3_.y); }
{% else %}#define DG_A_TF32(ah, al, slot, col) unsigned ah[4], al[4]; \\
    dg_tf32_split(IN0(slot, col), ah[0], al[0]); dg_tf32_split(IN1(slot, col), ah[1], al[1]); \\
    dg_tf32_split(IN0(slot, (col) + 4), ah[2], al[2]); dg_tf32_split(IN1(slot, (col) + 4), ah[3], al[3])
{% endif %}''')
rep('''            const real p00 = SX(b_ + f00, g), q00 = SX(b_ + f01, g), p01 = SX(b_ + f00, g + 8), q01 = SX(b_ + f01, g + 8);
            const real p10 = SX(b_ + f10, g), q10 = SX(b_ + f11, g), p11 = SX(b_ + f10, g + 8), q11 = SX(b_ + f11, g + 8);''',
'''            const real p00 = SX(b_ + f00, g){{ jx }}, q00 = SX(b_ + f01, g){{ jx }}, p01 = SX(b_ + f00, g + 8){{ jx }}, q01 = SX(b_ + f01, g + 8){{ jx }};
            const real p10 = SX(b_ + f10, g){{ jx }}, q10 = SX(b_ + f11, g){{ jx }}, p11 = SX(b_ + f10, g + 8){{ jx }}, q11 = SX(b_ + f11, g + 8){{ jx }};''')
rep('''/* c += A·B as A_lo·B_hi''','''/* x as a float2 of its tf32 parts (high, low) */
__device__ __forceinline__ float2 dg_tf32_pair(const float x)
{
    unsigned hi, lo;
    dg_tf32_split(x, hi, lo);
    return make_float2(__uint_as_float(hi), __uint_as_float(lo));
}
/* c += A·B as A_lo·B_hi''')
open(p,'w').write(s)
p=os.path.join(root,'formulations/nodal-tri/src/render.rs')
s=open(p).read()
rep('''    ctx.insert("xt", if tf32 { "real" } else { "double" });''','''    ctx.insert("xt", if tf32 { "real" } else { "double" });
    let presplit = tf32 && std::env::var("DG_PROBE_PRESPLIT").is_ok_and(|v| v == "1");
    ctx.insert("presplit", &presplit);
    ctx.insert("st", if presplit { "float2" } else if tf32 { "real" } else { "double" });
    ctx.insert("jx", if presplit { ".x" } else { "" });''')
rep('''    ctx.insert("cs", &mirror_mma_stride(variant.group, shape));''','''    ctx.insert("cs", &if presplit { variant.group + 4 } else { mirror_mma_stride(variant.group, shape) });''')
rep('''                let value = match shape {
                    crate::mirror_mma::MirrorMmaShape::F64 => 8,
                    crate::mirror_mma::MirrorMmaShape::Tf32 => 4,
                };''','''                let presplit = std::env::var("DG_PROBE_PRESPLIT").is_ok_and(|v| v == "1");
                let value = match shape {
                    crate::mirror_mma::MirrorMmaShape::F64 => 8,
                    crate::mirror_mma::MirrorMmaShape::Tf32 if presplit => 8,
                    crate::mirror_mma::MirrorMmaShape::Tf32 => 4,
                };''')
rep('''                (slots * shape.width() * layout.sum_steps + nvars * nf)
                    * mirror_mma_stride(self.volume_elements, shape)''','''                (slots * shape.width() * layout.sum_steps + nvars * nf)
                    * if presplit { self.volume_elements + 4 } else { mirror_mma_stride(self.volume_elements, shape) }''')
open(p,'w').write(s)
