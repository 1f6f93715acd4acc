use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, Layers, WorldConfig};
use bevy_icollide::testkit::Rng;
use glam::{Quat, Vec3};
use std::time::Instant;

fn main() {
    let statics: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let movers: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let filtered: bool = std::env::args().nth(3).is_some();
    let mut w = CollisionWorld::new(WorldConfig::default()).unwrap();
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).unwrap();
    let mut rng = Rng::new(1);
    let mut statics_h = vec![];
    for _ in 0..statics {
        let mut d = BodyDesc::new(cube.clone());
        d.is_static = !filtered;
        if filtered {
            d.layers = Layers {
                memberships: 2,
                filters: !2,
            };
        }
        let h = w.add_body(d);
        statics_h.push(h);
        w.set_pose(
            h,
            Pose::new(Quat::IDENTITY, Vec3::new(rng.range(-0.01, 0.01), 0.0, 0.0)),
        )
        .unwrap();
    }
    let mut hs = vec![];
    let mut pos = vec![];
    let jitter = statics_h.clone();
    for _ in 0..movers {
        let h = w.add_body(BodyDesc::new(cube.clone()));
        let p = rng.in_cube(50.0);
        w.set_pose(h, Pose::new(Quat::IDENTITY, p)).unwrap();
        hs.push(h);
        pos.push(p);
    }
    for f in 0..20 {
        let t = Instant::now();
        let n = w.step().count();
        let dt = t.elapsed();
        if f < 3 || f % 5 == 0 {
            println!("frame {f}: {:?} events {n} pairs {}", dt, w.pairs().count());
        }
        for (h, p) in hs.iter().zip(pos.iter_mut()) {
            *p += rng.in_cube(0.05);
            w.set_pose(*h, Pose::new(Quat::IDENTITY, *p)).unwrap();
        }
        if std::env::args().nth(4).is_some() {
            for &k in &jitter {
                let _ = w.set_pose(
                    k,
                    Pose::new(Quat::IDENTITY, Vec3::new(rng.range(-0.01, 0.01), 0.0, 0.0)),
                );
            }
        }
    }
}
