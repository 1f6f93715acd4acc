//! The one-thread pose sync applies Bevy's changed transforms in table
//! order, or, once colliders despawned and spawned again have scattered the
//! table, staged and applied in body order (every slot swept when many
//! moved, the few sorted otherwise): every body gets exactly its
//! transform's pose on every path.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::math::Pose;
use bevy_icollide::prelude::*;
use bevy_icollide::testkit::MultiBodyScene;

use crate::hull_scene::{self, transform};
use bevy_transform::prelude::*;

/// Every collider's body and `ColliderPose` hold its `GlobalTransform`'s
/// pose, bit for bit.
fn assert_synced(app: &mut App, ids: &[Entity], frame: usize) {
    let list = ids.to_vec();
    let poses = app
        .world_mut()
        .run_system_once(move |c: Collisions| {
            let pose = |e| c.world().pose(c.body(e).expect("a body"));
            list.iter().map(|&e| pose(e)).collect::<Vec<_>>()
        })
        .expect("runs");
    for (&e, got) in ids.iter().zip(poses) {
        let global = app.world().get::<GlobalTransform>(e).expect("a transform");
        let want = Pose::try_from(global).expect("rigid");
        assert_eq!(got, Some(want), "frame {frame}, {e}: body pose");
        let pose = app.world().get::<ColliderPose>(e).expect("a pose");
        assert_eq!(pose.0, want, "frame {frame}, {e}: ColliderPose");
    }
}

/// 600 moving hulls; from frame 3 on, one in 10 despawned and spawned
/// again every frame (the table order scatters); every frame moves every
/// body (the staged items fill the slots) or, every third frame, one in 25
/// (few items among many slots).
#[test]
fn every_path_of_the_pose_sync_applies_every_pose() {
    let params = hull_scene::params(600, 11);
    let mut scene = MultiBodyScene::new(&params);
    let mut app = hull_scene::app(1);
    let mut ids: Vec<Entity> = (0..params.count)
        .map(|i| hull_scene::spawn_hull(&mut app, &scene, i))
        .collect();
    for frame in 0..24 {
        if frame >= 3 {
            for i in (frame % 10..params.count).step_by(10) {
                app.world_mut().despawn(ids[i]);
                ids[i] = hull_scene::spawn_hull(&mut app, &scene, i);
            }
        }
        let every = if frame % 3 == 2 { 25 } else { 1 };
        for (i, &e) in ids.iter().enumerate().step_by(every) {
            *app.world_mut().get_mut::<Transform>(e).expect("a body") = transform(&scene, i);
        }
        app.update();
        assert_synced(&mut app, &ids, frame);
        scene.step();
    }
}
