//! The window's camera and debug-render keys.

use bevy_full::gizmos::config::GizmoConfigStore;
use bevy_full::input::mouse::AccumulatedMouseMotion;
use bevy_full::prelude::*;
use bevy_icollide::prelude::*;

/// W A S D Q E fly, the right mouse button looks around.
pub fn fly_camera(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    time: Res<Time>,
    mut camera: Query<&mut Transform, With<Camera3d>>,
) {
    let Ok(mut t) = camera.single_mut() else {
        return;
    };
    let axis =
        |pos: KeyCode, neg: KeyCode| f32::from(keys.pressed(pos)) - f32::from(keys.pressed(neg));
    let (forward, right) = (t.forward().as_vec3(), t.right().as_vec3());
    t.translation += (forward * axis(KeyCode::KeyW, KeyCode::KeyS)
        + right * axis(KeyCode::KeyD, KeyCode::KeyA)
        + Vec3::Y * axis(KeyCode::KeyE, KeyCode::KeyQ))
        * 1.5
        * time.delta_secs();
    if buttons.pressed(MouseButton::Right) {
        let d = motion.delta * 0.003;
        t.rotate_y(-d.x);
        t.rotate_local_x(-d.y);
    }
}

/// Tab shows or hides the collision debug render.
pub fn toggle_debug(keys: Res<ButtonInput<KeyCode>>, mut store: ResMut<GizmoConfigStore>) {
    if keys.just_pressed(KeyCode::Tab) {
        let (config, _) = store.config_mut::<CollisionGizmos>();
        config.enabled = !config.enabled;
    }
}
