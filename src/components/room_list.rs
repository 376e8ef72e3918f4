//! "JOGAR COM ALGUÉM" on a game's screen, and the player's invitation rooms of that game
//! (ON-R05): those this device holds seats in, and a signed-in player's from any device; the
//! ones where it is their turn first, marked, with their count.

use dioxus::prelude::*;
use velha_api::{RoomBoard, RoomView};

use crate::app::{Screen, use_texts};
use crate::components::push_row::NoticesSetting;
use crate::lazy::{Online, Part};
use crate::online::membership::{Membership, use_membership};
use crate::online::{client, room_live};
use crate::screens::room::{RoomGoal, RoomTarget};

/// Whether it is the viewer's turn in the room.
fn my_turn(room: &RoomView) -> bool {
    room.you.is_some() && room.to_move == room.you && !room.closed
}

/// The button that makes a room of `board`, and the player's rooms of that board.
#[component]
pub fn PlayWithSomeone(go: EventHandler<Screen>, board: RoomBoard) -> Element {
    let t = use_texts();
    let mut target = use_context::<RoomTarget>().0;
    rsx! {
        button { class: "primary wide", "data-action": "play-with-someone",
            onclick: move |_| {
                target.set(RoomGoal::Make(board));
                go.call(Screen::Room);
            },
            "{t.play_with_someone}"
        }
        Online { part: Part::Rooms(board), go }
    }
}

/// The rooms, newest activity first after the ones waiting for the player.
#[component]
pub fn RoomList(go: EventHandler<Screen>, board: RoomBoard) -> Element {
    let t = use_texts();
    let r = t.rooms();
    let mut rooms = use_signal(Vec::<RoomView>::new);
    let mut target = use_context::<RoomTarget>().0;
    let membership = use_membership();
    // Once the kept session is checked: a guest has no account list (the server would only
    // answer 401), so the device's is the whole list.
    use_effect(move || {
        let signed_in = match &*membership.read() {
            Membership::Checking => return,
            Membership::Guest => false,
            Membership::Member(_) => true,
        };
        spawn(async move {
            let mut all = client::rooms_of_device(room_live::credentials())
                .await
                .unwrap_or_default();
            if signed_in {
                for room in client::rooms_of_account().await.unwrap_or_default() {
                    if !all.iter().any(|known| known.id == room.id) {
                        all.push(room);
                    }
                }
            }
            all.retain(|room| room.board == board);
            all.sort_by_key(|room| (!my_turn(room), room.idle_ms));
            rooms.set(all);
        });
    });
    let waiting = rooms.read().iter().filter(|room| my_turn(room)).count();
    if rooms.read().is_empty() {
        return rsx! {};
    }
    rsx! {
        section { class: "room-list", "data-rooms": "{rooms.read().len()}",
            h2 { "{r.your_rooms} "
                if waiting > 0 {
                    span { class: "badge", "data-your-turn": "{waiting}", "aria-label": crate::i18n::counted(waiting as u32, r.waiting_counted[0], r.waiting_counted[1]), "{waiting}" }
                }
            }
            for room in rooms() {
                button { key: "{room.id}", class: if my_turn(&room) { "wide room-line mine" } else { "wide room-line" },
                    "data-room": "{room.id}",
                    onclick: {
                        let id = room.id.clone();
                        move |_| {
                            target.set(RoomGoal::Open(id.clone()));
                            go.call(Screen::Room);
                        }
                    },
                    span { class: "name",
                        "{room.x.name} × {room.o.as_ref().map(|o| o.name.clone()).unwrap_or_else(|| \"…\".into())}"
                    }
                    span { class: "muted",
                        if room.closed { "{r.closed}" } else if my_turn(&room) { "{r.your_turn}" } else if room.ending.is_some() { "{r.game_over}" } else { "{r.their_turn}" }
                    }
                }
            }
            NoticesSetting {}
        }
    }
}
