//! The small part of RON that version 1 manifests use, read into a JSON value, so the run
//! time reads old packages without depending on a RON parser: structs `(name: value, …)`
//! (optionally named), tuples `(a, b)`, lists `[…]`, strings, numbers, booleans and
//! `Some(…)`/`None`.

use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

/// Deepest nesting accepted: manifests nest three levels; a hostile file must not recurse
/// the stack away.
const MAX_DEPTH: usize = 32;

/// Parses `text` and deserialises it into `T`.
pub(super) fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text at byte {}", p.i));
    }
    serde_json::from_value(v).map_err(|e| e.to_string())
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_ascii_whitespace() {
                self.i += 1;
            } else if self.s[self.i..].starts_with(b"//") {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.i += 1;
        }
        let word = &self.s[start..self.i];
        if word.is_empty() || word[0].is_ascii_digit() {
            self.i = start;
            return None;
        }
        Some(String::from_utf8_lossy(word).into_owned())
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".to_owned());
        }
        self.ws();
        match self.peek() {
            Some(b'"') => self.string().map(Value::String),
            Some(b'[') => {
                self.i += 1;
                self.items(b']', depth).map(Value::Array)
            }
            Some(b'(') => {
                self.i += 1;
                self.parens(depth)
            }
            Some(c) if c == b'-' || c == b'+' || c == b'.' || c.is_ascii_digit() => self.number(),
            Some(_) => {
                let word = self
                    .ident()
                    .ok_or_else(|| format!("unexpected byte at {}", self.i))?;
                match word.as_str() {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    "None" => Ok(Value::Null),
                    "Some" if self.eat(b'(') => {
                        let v = self.value(depth + 1)?;
                        self.eat(b',');
                        if self.eat(b')') {
                            Ok(v)
                        } else {
                            Err("unclosed Some(".to_owned())
                        }
                    }
                    // A named struct or tuple: the name carries nothing.
                    _ if self.eat(b'(') => self.parens(depth),
                    _ => Ok(Value::String(word)),
                }
            }
            None => Err("unexpected end".to_owned()),
        }
    }

    /// After `(`: a struct if the first item is `name:`, else a tuple.
    fn parens(&mut self, depth: usize) -> Result<Value, String> {
        let save = self.i;
        if self.ident().is_some() && self.eat(b':') {
            self.i = save;
            let mut map = Map::new();
            loop {
                if self.eat(b')') {
                    return Ok(Value::Object(map));
                }
                let key = self.ident().ok_or("expected a field name")?;
                if !self.eat(b':') {
                    return Err(format!("expected ':' after {key}"));
                }
                map.insert(key, self.value(depth + 1)?);
                if !self.eat(b',') && !self.eat(b')') {
                    return Err("expected ',' or ')'".to_owned());
                } else if self.s.get(self.i - 1) == Some(&b')') {
                    return Ok(Value::Object(map));
                }
            }
        }
        self.i = save;
        self.items(b')', depth).map(Value::Array)
    }

    fn items(&mut self, close: u8, depth: usize) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(out);
            }
            out.push(self.value(depth + 1)?);
            if !self.eat(b',') && !self.eat(close) {
                return Err("expected ',' or a closing bracket".to_owned());
            } else if self.s.get(self.i - 1) == Some(&close) {
                return Ok(out);
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek().ok_or("unclosed string")?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let e = self.peek().ok_or("unclosed string")?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'0' => out.push(0),
                        b'u' if self.eat(b'{') => {
                            let start = self.i;
                            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                                self.i += 1;
                            }
                            let hex = std::str::from_utf8(&self.s[start..self.i])
                                .map_err(|e| e.to_string())?;
                            let ch = u32::from_str_radix(hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or("bad \\u escape")?;
                            if !self.eat(b'}') {
                                return Err("bad \\u escape".to_owned());
                            }
                            let mut buf = [0_u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(&c))
        {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
        if let Ok(n) = text.parse::<i64>() {
            return Ok(Value::Number(n.into()));
        }
        text.parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("bad number {text}"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reads_a_version_1_manifest() {
        let text = r#"(
    map_name: "small",
    width: 96,
    cell_size_m: 1.0,
    bake_options: [
        ("sector_size", "10"),
    ],
    layers: [
        (
            name: "land",
            params: "(name:\"land\",max_slope_deg:35.0)",
            clear_share: 0.37,
        ),
    ],
    extra: Some(Named(a: -2e3, b: [])),
)"#;
        let v: Value = from_str(text).unwrap();
        assert_eq!(v["map_name"], "small");
        assert_eq!(v["width"], 96);
        assert_eq!(v["cell_size_m"], 1.0);
        assert_eq!(v["bake_options"][0][1], "10");
        assert_eq!(
            v["layers"][0]["params"],
            "(name:\"land\",max_slope_deg:35.0)"
        );
        assert_eq!(v["extra"]["a"], -2000.0);
        assert_eq!(v["extra"]["b"], Value::Array(vec![]));
    }

    #[test]
    fn refuses_broken_and_deep_text() {
        for bad in ["(a: 1", "(a 1)", "\"open", "[1, 2", "((((", "(a: 1))"] {
            assert!(from_str::<Value>(bad).is_err(), "{bad}");
        }
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(from_str::<Value>(&deep).is_err());
    }
}
