//! The OpenAPI document is served, matches the copy in the repository, and is true: every
//! operation it lists exists, and every status the server answers is one it documents.

use reqwest::Method;

use crate::common::{Db, Server};
use crate::live::meet;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json");

async fn api_document_is_served_committed_and_true(db: Db) {
    let server = Server::start(db, &[]).await;
    let (x, _xl, _o, _ol, id) = meet(&server, 1).await;
    let (status, doc) = x.raw(Method::GET, "/api/openapi.json", None).await.unwrap();
    assert_eq!(status, 200);
    let served = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    if std::env::var("UPDATE_OPENAPI").is_ok() {
        std::fs::write(COMMITTED, &served).unwrap();
    }
    let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
    assert!(
        committed == served,
        "crates/server/openapi.json is not the served document: run \
         UPDATE_OPENAPI=1 cargo test -p velha-server api_document and commit it"
    );
    for schema in ["ApiError", "ClientMsg", "ServerMsg", "MatchView", "Session"] {
        assert!(
            doc["components"]["schemas"][schema].is_object(),
            "{schema} missing"
        );
    }

    let anonymous = server.client();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let documented: Vec<u16> = op["responses"]
                .as_object()
                .unwrap()
                .keys()
                .map(|k| k.parse().unwrap())
                .collect();
            for p in op["parameters"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().unwrap();
                if p["in"] == "path" {
                    assert!(
                        path.contains(&format!("{{{name}}}")),
                        "{method} {path}: path parameter {name} is not in the path"
                    );
                }
            }
            let method: Method = method.to_uppercase().parse().unwrap();
            let concrete = path.replace("{id}", &id);
            let body = op.get("requestBody").map(|_| "{}");
            for client in [&anonymous, &x] {
                let (status, json) = client.raw(method.clone(), &concrete, body).await.unwrap();
                assert!(
                    documented.contains(&status),
                    "{method} {path} answered {status}, documented {documented:?}: {json}"
                );
                if status >= 400 && path != "/api/live" {
                    assert!(
                        json["code"].is_string() && json["message"].is_string(),
                        "{method} {path} {status}: not an ApiError: {json}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 24, "only {checked} calls checked");
}
on_both!(api_document_is_served_committed_and_true);
